#pragma once
// OpenBLAS from Debian (libopenblas-dev): the matrix products of the speaker encoder.
#include <cblas.h>
#include "../CNativeTable/native_table.h"

// The functions the backend calls, opened on first use rather than linked, so that a program
// built with the backend maps no engine until it uses one (see NativeFunctions in the core).
// Each field takes its type from the declaration above (__typeof__): it cannot drift.
#define RAC_OPENBLAS_FUNCTIONS(X) \
    X(cblas_sgemm)

RAC_NATIVE_TABLE(rac_openblas_functions, rac_openblas_functions_load, RAC_OPENBLAS_FUNCTIONS)
