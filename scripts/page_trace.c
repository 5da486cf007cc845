// A preloaded library for scripts/make_order_file.sh: it records the first address run on each
// page of the program's code, and at exit appends those addresses (link-time, hexadecimal, one
// per line) to the file named by RUNANYWHERE_PAGE_TRACE.
//
//   cc -O2 -shared -fPIC scripts/page_trace.c -o page_trace.so
//   RUNANYWHERE_PAGE_TRACE=pages.txt LD_PRELOAD=./page_trace.so PROGRAM ...
//
// Why: code the compiler generates without a coverage callback, or inlines and merges
// differently in the instrumented build, still runs in a release build, and the kernel keeps
// 64 KiB resident around each page run. How: the program's executable segment is made
// non-executable; the first instruction fetched from each page faults, and the handler records
// the address and makes the page executable again.
#define _GNU_SOURCE
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

enum { maximum_faults = 1 << 16 };
static uintptr_t text_start, text_end, load_base, page_size;
static uint8_t *released;  // one byte per page of the segment: made executable again
static uintptr_t faults[maximum_faults];
static uint32_t fault_count;
static struct sigaction previous;
static char trace_path[4096];

// Gives the whole segment back and the previous handler, so the fault runs again and is
// reported as it would have been without this library.
static void stand_aside(int signal) {
    mprotect((void *)text_start, text_end - text_start, PROT_READ | PROT_EXEC);
    sigaction(signal, &previous, NULL);
}

// Whether the fault was an instruction fetch (the page-fault error code's bit 4, on x86-64).
static int is_fetch(const void *context) {
#if defined(__x86_64__)
    return (((const ucontext_t *)context)->uc_mcontext.gregs[REG_ERR] & 0x10) != 0;
#else
    (void)context;
    return 1;
#endif
}

static void on_fault(int signal, siginfo_t *info, void *context) {
    uintptr_t address = (uintptr_t)info->si_addr;
    if (info->si_code != SEGV_ACCERR || address < text_start || address >= text_end || !is_fetch(context)) {
        stand_aside(signal);
        return;
    }
    uintptr_t index = (address - text_start) / page_size;
    // Another thread released this page between the fault and now: run the instruction again.
    if (__atomic_exchange_n(&released[index], 1, __ATOMIC_ACQ_REL)) return;
    if (mprotect((void *)(text_start + index * page_size), page_size, PROT_READ | PROT_EXEC)) {
        stand_aside(signal);
        return;
    }
    uint32_t slot = __atomic_fetch_add(&fault_count, 1, __ATOMIC_RELAXED);
    if (slot < maximum_faults) faults[slot] = address;
}

static void write_trace(void) {
    FILE *file = fopen(trace_path, "a");
    if (!file) return;
    uint32_t count = fault_count < maximum_faults ? fault_count : maximum_faults;
    for (uint32_t i = 0; i < count; i++) {
        fprintf(file, "%lx\n", (unsigned long)(faults[i] - load_base));
    }
    fclose(file);
}

// The main program is the first object dl_iterate_phdr reports; its executable PT_LOAD is the code.
static int find_text(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    (void)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type == PT_LOAD && (header->p_flags & PF_X)) {
            uintptr_t start = info->dlpi_addr + header->p_vaddr;
            text_start = start & ~(page_size - 1);
            text_end = (start + header->p_memsz + page_size - 1) & ~(page_size - 1);
            load_base = info->dlpi_addr;
            break;
        }
    }
    return 1;
}

__attribute__((constructor)) static void start_tracing(void) {
    const char *path = getenv("RUNANYWHERE_PAGE_TRACE");
    if (!path) return;
    snprintf(trace_path, sizeof trace_path, "%s", path);
    // The program's own children (nvidia-smi, say) would otherwise trace themselves into the file.
    unsetenv("LD_PRELOAD");
    unsetenv("RUNANYWHERE_PAGE_TRACE");
    page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
    dl_iterate_phdr(find_text, NULL);
    released = text_start ? calloc((text_end - text_start) / page_size, 1) : NULL;
    if (!released) {
        fprintf(stderr, "page_trace: no executable segment found\n");
        return;
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGSEGV, &action, &previous) || atexit(write_trace)
        || mprotect((void *)text_start, text_end - text_start, PROT_READ)) {
        perror("page_trace");
    }
}
