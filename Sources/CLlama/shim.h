#pragma once
// llama.cpp's public C API, as installed by scripts/bootstrap (see runanywhere-llama.pc), and
// libmtmd, its library for image input to language models: the types, and a table of the
// functions the backend calls. The libraries are opened on first use (LlamaLibrary.swift) from
// the path the bootstrap records in runanywhere-llama-path.h, so a program that links the
// backend maps no engine until it loads a model.
#include <llama.h>
#include <ggml.h>
#include <mtmd.h>
#include <mtmd-helper.h>
#include <runanywhere-llama-path.h>
#include <runanywhere-llama-chat-path.h>
#include "rac_llama_chat.h"
#include "../CNativeTable/native_table.h"

// Every function the backend calls. Each field of rac_llama_functions takes its type from the
// declaration above (__typeof__), so the table cannot drift from the headers.
#define RAC_LLAMA_FUNCTIONS(X) \
    X(ggml_version) X(llama_adapter_lora_free) X(llama_adapter_lora_init) X(llama_backend_init) \
    X(llama_batch_free) X(llama_batch_get_one) X(llama_batch_init) X(llama_chat_apply_template) \
    X(llama_context_default_params) X(llama_decode) X(llama_free) X(llama_get_embeddings_seq) \
    X(llama_get_logits_ith) X(llama_get_memory) X(llama_init_from_model) X(llama_log_set) \
    X(llama_memory_clear) X(llama_memory_seq_cp) X(llama_memory_seq_rm) X(llama_model_chat_template) \
    X(llama_model_default_params) X(llama_model_free) X(llama_model_get_vocab) \
    X(llama_model_load_from_file) X(llama_model_n_cls_out) X(llama_model_n_ctx_train) \
    X(llama_model_n_embd) X(llama_n_ctx) X(llama_n_ctx_seq) X(llama_n_threads) \
    X(llama_n_threads_batch) X(llama_pooling_type) X(llama_print_system_info) \
    X(llama_sampler_accept) X(llama_sampler_apply) X(llama_sampler_chain_add) \
    X(llama_sampler_chain_default_params) X(llama_sampler_chain_init) X(llama_sampler_free) \
    X(llama_sampler_init_dist) X(llama_sampler_init_grammar) X(llama_sampler_init_grammar_lazy_patterns) \
    X(llama_sampler_init_greedy) X(llama_sampler_init_penalties) X(llama_sampler_init_temp) \
    X(llama_sampler_init_top_k) X(llama_sampler_init_top_p) X(llama_sampler_sample) \
    X(llama_set_adapters_lora) X(llama_set_n_threads) X(llama_supports_gpu_offload) \
    X(llama_supports_mmap) X(llama_token_to_piece) X(llama_tokenize) X(llama_vocab_is_eog) \
    X(llama_vocab_n_tokens) X(llama_vocab_sep) \
    X(mtmd_bitmap_free) X(mtmd_bitmap_init) X(mtmd_bitmap_is_audio) X(mtmd_context_params_default) \
    X(mtmd_default_marker) X(mtmd_free) X(mtmd_helper_bitmap_init_from_buf) \
    X(mtmd_helper_eval_chunk_single) X(mtmd_helper_get_n_pos) X(mtmd_helper_get_n_tokens) \
    X(mtmd_helper_init_opt_default) X(mtmd_helper_log_set) X(mtmd_helper_video_free) X(mtmd_init_from_file) X(mtmd_input_chunk_get_n_tokens) \
    X(mtmd_input_chunk_get_type) X(mtmd_input_chunks_free) X(mtmd_input_chunks_get) \
    X(mtmd_input_chunks_init) X(mtmd_input_chunks_size) X(mtmd_tokenize) X(mtmd_support_vision)

// Filled from a dlopen handle of libmtmd, whose dependencies are libllama and ggml.
RAC_NATIVE_TABLE(rac_llama_functions, rac_llama_functions_load, RAC_LLAMA_FUNCTIONS)

// llama.cpp's chat layer through our C shim (rac_llama_chat.h), a library of its own that the
// bootstrap compiles against libllama-common: opened when a chat template is first used.
#define RAC_LLAMA_CHAT_FUNCTIONS(X) \
    X(rac_llama_chat_init) X(rac_llama_chat_source) X(rac_llama_chat_tokens) X(rac_llama_chat_render) X(rac_llama_chat_apply) \
    X(rac_llama_chat_parse) X(rac_llama_chat_free) X(rac_llama_chat_string_free)

RAC_NATIVE_TABLE(rac_llama_chat_functions, rac_llama_chat_functions_load, RAC_LLAMA_CHAT_FUNCTIONS)
