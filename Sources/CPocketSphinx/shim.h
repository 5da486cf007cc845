#pragma once
// pocketsphinx 0.8+5prealpha from Debian (libpocketsphinx-dev, pocketsphinx-en-us): keyword
// spotting for wake words. Its headers include sphinxbase's by their short names.
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <dlfcn.h>
#include <stddef.h>

// The functions the backend calls, opened on first use rather than linked, so that a program
// built with the backend maps no engine until it uses one (see NativeFunctions in the core).
// Each field takes its type from the declaration above (__typeof__): it cannot drift.
#define RAC_POCKETSPHINX_FUNCTIONS(X) \
    X(cmd_ln_free_r) X(cmd_ln_parse_r) X(err_set_logfp) X(ps_args) \
    X(ps_end_utt) X(ps_free) X(ps_get_hyp) X(ps_init) \
    X(ps_lookup_word) X(ps_process_raw) X(ps_seg_frames) X(ps_seg_iter) \
    X(ps_seg_next) X(ps_set_kws) X(ps_set_search) X(ps_start_utt)

#define RAC_POCKETSPHINX_FIELD(name) __typeof__(&name) name;
typedef struct rac_pocketsphinx_functions {
    RAC_POCKETSPHINX_FUNCTIONS(RAC_POCKETSPHINX_FIELD)
} rac_pocketsphinx_functions;
#undef RAC_POCKETSPHINX_FIELD

// Fills `functions` from the dlopen handle `library`; the name of the first function missing,
// or NULL when all were found.
static inline const char *rac_pocketsphinx_functions_load(rac_pocketsphinx_functions *functions, void *library) {
#define RAC_POCKETSPHINX_LOAD(name) \
    functions->name = (__typeof__(&name))dlsym(library, #name); \
    if (functions->name == NULL) return #name;
    RAC_POCKETSPHINX_FUNCTIONS(RAC_POCKETSPHINX_LOAD)
#undef RAC_POCKETSPHINX_LOAD
    return NULL;
}
