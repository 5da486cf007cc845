#pragma once
// whisper.cpp's C API as installed by scripts/bootstrap (see runanywhere-whisper.pc). The library
// is opened at run time (WhisperLibrary.swift) from the path the bootstrap records in
// runanywhere-whisper-path.h.
#include <whisper.h>
#include <runanywhere-whisper-path.h>
#include "../CNativeTable/native_table.h"

// The functions the backend calls, opened on first use rather than linked.
#define RAC_WHISPER_FUNCTIONS(X) \
    X(whisper_version) X(whisper_print_system_info) X(whisper_log_set) X(whisper_context_default_params) \
    X(whisper_init_from_file_with_params) X(whisper_free) X(whisper_is_multilingual) \
    X(whisper_full_default_params) X(whisper_full) X(whisper_full_n_segments) \
    X(whisper_full_get_segment_text) X(whisper_full_get_segment_t0) X(whisper_full_get_segment_t1) \
    X(whisper_full_n_tokens) X(whisper_full_get_token_id) X(whisper_full_get_token_p) \
    X(whisper_full_get_segment_no_speech_prob) X(whisper_token_eot) X(whisper_full_lang_id) X(whisper_lang_str)

RAC_NATIVE_TABLE(rac_whisper_functions, rac_whisper_functions_load, RAC_WHISPER_FUNCTIONS)
