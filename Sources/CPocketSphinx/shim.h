#pragma once
// pocketsphinx 0.8+5prealpha from Debian (libpocketsphinx-dev, pocketsphinx-en-us): keyword
// spotting for wake words. Its headers include sphinxbase's by their short names.
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include "../CNativeTable/native_table.h"

// The functions the backend calls, opened on first use rather than linked, so that a program
// built with the backend maps no engine until it uses one (see NativeFunctions in the core).
// Each field takes its type from the declaration above (__typeof__): it cannot drift.
#define RAC_POCKETSPHINX_FUNCTIONS(X) \
    X(cmd_ln_free_r) X(cmd_ln_parse_r) X(err_set_logfp) X(ps_args) \
    X(ps_end_utt) X(ps_free) X(ps_get_hyp) X(ps_init) \
    X(ps_lookup_word) X(ps_process_raw) X(ps_seg_frames) X(ps_seg_iter) \
    X(ps_seg_next) X(ps_set_kws) X(ps_set_search) X(ps_start_utt)

RAC_NATIVE_TABLE(rac_pocketsphinx_functions, rac_pocketsphinx_functions_load, RAC_POCKETSPHINX_FUNCTIONS)
