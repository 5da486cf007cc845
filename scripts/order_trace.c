// The coverage callbacks linked into the instrumented CLI that scripts/make_order_file.sh builds:
// they record each instrumented function the first time it runs, in that order, and at exit
// append one line per function, "MODULE OFFSET", to the file named by RUNANYWHERE_ORDER_TRACE.
//
// The compiler calls __sanitizer_cov_trace_pc_guard at the entry of every function when a
// module is built with -sanitize-coverage=func,trace-pc-guard. Its guard is set to 0 after the
// first call, so a function is recorded once and costs a load and a branch afterwards.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void **called;
static uint32_t count;
static uint32_t capacity;

static void write_trace(void) {
    const char *path = getenv("RUNANYWHERE_ORDER_TRACE");
    FILE *file = path ? fopen(path, "a") : NULL;
    if (!file) return;
    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < count; i++) {
        Dl_info info;
        if (dladdr(called[i], &info) && info.dli_fname) {
            unsigned long offset = (unsigned long)((char *)called[i] - (char *)info.dli_fbase);
            fprintf(file, "%s %lx\n", info.dli_fname, offset);
        }
    }
    pthread_mutex_unlock(&lock);
    fclose(file);
}

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) {
    static int registered;
    if (start == stop || *start) return;
    for (uint32_t *guard = start; guard < stop; guard++) *guard = 1;
    if (!registered) {
        registered = 1;
        atexit(write_trace);
    }
}

// The guard is cleared atomically, so of two threads entering a function first, one records it;
// the lock only serializes first calls.
void __sanitizer_cov_trace_pc_guard(uint32_t *guard) {
    if (!__atomic_exchange_n(guard, 0, __ATOMIC_RELAXED)) return;
    void *caller = __builtin_return_address(0);
    pthread_mutex_lock(&lock);
    if (count == capacity) {
        uint32_t grown = capacity ? capacity * 2 : 65536;
        void **larger = realloc(called, grown * sizeof(void *));
        if (!larger) {
            pthread_mutex_unlock(&lock);
            return;
        }
        called = larger;
        capacity = grown;
    }
    called[count++] = caller;
    pthread_mutex_unlock(&lock);
}
