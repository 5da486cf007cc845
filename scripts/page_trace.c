// A preloaded library for scripts/make_order_file.sh: it records which 4 KiB pages of the
// program's code run, and at exit appends their link-time addresses, one hexadecimal number per
// line, to the file named by RUNANYWHERE_PAGE_TRACE.
//
//   cc -O2 -shared -fPIC scripts/page_trace.c -o page_trace.so
//   RUNANYWHERE_PAGE_TRACE=pages.txt LD_PRELOAD=./page_trace.so PROGRAM ...
//
// Why: code the compiler generates without a coverage callback (some value witnesses,
// functions merged or specialized differently in the instrumented build) still runs in a
// release build. The kernel counts code 64 KiB around each page touched, so this finds what the
// ordering missed, page by page. How: the program's executable segment is made non-executable;
// the first instruction fetched from each page faults, and the handler records the page and
// makes it executable again.
#define _GNU_SOURCE
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { maximum_pages = 1 << 16 };
static uintptr_t text_start, text_end, load_base;
static uintptr_t pages[maximum_pages];
static volatile uint32_t page_count;
static struct sigaction previous;

static void on_fault(int signal, siginfo_t *info, void *context) {
    uintptr_t address = (uintptr_t)info->si_addr;
    if (address >= text_start && address < text_end) {
        uintptr_t page = address & ~(uintptr_t)4095;
        if (mprotect((void *)page, 4096, PROT_READ | PROT_EXEC) == 0) {
            uint32_t slot = __atomic_fetch_add(&page_count, 1, __ATOMIC_RELAXED);
            if (slot < maximum_pages) pages[slot] = page;
            return;
        }
    }
    // Not ours: the program's own fault, reported as it would have been.
    sigaction(signal, &previous, NULL);
    (void)context;
}

static void write_trace(void) {
    const char *path = getenv("RUNANYWHERE_PAGE_TRACE");
    FILE *file = path ? fopen(path, "a") : NULL;
    if (!file) return;
    uint32_t count = page_count < maximum_pages ? page_count : maximum_pages;
    for (uint32_t i = 0; i < count; i++) fprintf(file, "%lx\n", (unsigned long)(pages[i] - load_base));
    fclose(file);
}

// The main program is the first object dl_iterate_phdr reports; its executable PT_LOAD is the code.
static int find_text(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    (void)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type == PT_LOAD && (header->p_flags & PF_X)) {
            text_start = (info->dlpi_addr + header->p_vaddr) & ~(uintptr_t)4095;
            text_end = (info->dlpi_addr + header->p_vaddr + header->p_memsz + 4095) & ~(uintptr_t)4095;
            load_base = info->dlpi_addr;
            break;
        }
    }
    return 1;
}

__attribute__((constructor)) static void start_tracing(void) {
    if (!getenv("RUNANYWHERE_PAGE_TRACE")) return;
    dl_iterate_phdr(find_text, NULL);
    if (!text_start) return;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &previous);
    atexit(write_trace);
    mprotect((void *)text_start, text_end - text_start, PROT_READ);
}
