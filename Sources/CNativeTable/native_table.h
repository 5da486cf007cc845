#pragma once
// A table of C functions opened on first use rather than linked, so that a program built with a
// backend maps no engine until it uses one (see NativeFunctions in the core). Each engine's
// shim.h lists its functions in an X-macro and declares its table with RAC_NATIVE_TABLE.
#include <dlfcn.h>
#include <stddef.h>

// One field per function, typed from the library's own declaration (__typeof__): the table
// cannot drift from the headers.
#define RAC_NATIVE_FIELD(name) __typeof__(&name) name;

#define RAC_NATIVE_LOAD(name) \
    functions->name = (__typeof__(&name))dlsym(library, #name); \
    if (functions->name == NULL) return #name;

// Declares the struct `type`, one field per function of `LIST`, and `loader`, which fills it
// from a dlopen handle and returns the name of the first function missing, or NULL when all
// were found.
#define RAC_NATIVE_TABLE(type, loader, LIST) \
    typedef struct type { \
        LIST(RAC_NATIVE_FIELD) \
    } type; \
    static inline const char *loader(type *functions, void *library) { \
        LIST(RAC_NATIVE_LOAD) \
        return NULL; \
    }
