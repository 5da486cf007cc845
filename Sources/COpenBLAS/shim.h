#pragma once
// OpenBLAS from Debian (libopenblas-dev): the matrix products of the speaker encoder.
#include <cblas.h>
#include <dlfcn.h>
#include <stddef.h>

// The functions the backend calls, opened on first use rather than linked, so that a program
// built with the backend maps no engine until it uses one (see NativeFunctions in the core).
// Each field takes its type from the declaration above (__typeof__): it cannot drift.
#define RAC_OPENBLAS_FUNCTIONS(X) \
    X(cblas_sgemm)

#define RAC_OPENBLAS_FIELD(name) __typeof__(&name) name;
typedef struct rac_openblas_functions {
    RAC_OPENBLAS_FUNCTIONS(RAC_OPENBLAS_FIELD)
} rac_openblas_functions;
#undef RAC_OPENBLAS_FIELD

// Fills `functions` from the dlopen handle `library`; the name of the first function missing,
// or NULL when all were found.
static inline const char *rac_openblas_functions_load(rac_openblas_functions *functions, void *library) {
#define RAC_OPENBLAS_LOAD(name) \
    functions->name = (__typeof__(&name))dlsym(library, #name); \
    if (functions->name == NULL) return #name;
    RAC_OPENBLAS_FUNCTIONS(RAC_OPENBLAS_LOAD)
#undef RAC_OPENBLAS_LOAD
    return NULL;
}
