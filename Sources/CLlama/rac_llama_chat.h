#pragma once
// A flat C face for llama.cpp's chat layer (common/chat.h and its Jinja engine), the one
// llama-server uses: a model's own chat template rendered, and its tool calls and reasoning
// written into the prompt and parsed back. Everything crosses as UTF-8 JSON text, so no C++
// type reaches Swift. rac_llama_chat.cpp implements it; scripts/bootstrap compiles it against
// the libllama-common of the same llama.cpp build into librunanywhere-llama-chat.so, which the
// backend opens on first use (SwiftPM does not compile it: CLlama is a system-library target).
//
// Every function returns NULL on failure and sets *error to a message (free it with
// rac_llama_chat_string_free); no C++ exception crosses this boundary.
#include <llama.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rac_llama_chat rac_llama_chat;

// A template for `model` (its GGUF `tokenizer.chat_template`, or `source` when not NULL), with
// the model's BOS and EOS text; or, when `model` is NULL, the template `source` with the given
// `bos` and `eos` text (NULL for none). NULL when there is no template or it does not parse.
rac_llama_chat *rac_llama_chat_init(
    const struct llama_model *model, const char *source, const char *bos, const char *eos, char **error);

// The template's text (the source given, or the model's).
char *rac_llama_chat_source(const rac_llama_chat *chat, char **error);

// The texts the template sees as bos_token and eos_token (the model's own when it was made from
// a model): a JSON object {"bos_token": …, "eos_token": …}.
char *rac_llama_chat_tokens(const rac_llama_chat *chat, char **error);

// The text the template gives for `context_json`, a JSON object whose keys become the template's
// variables (messages, tools, add_generation_prompt, bos_token, …) exactly as given: what
// Hugging Face transformers' apply_chat_template renders for the same variables.
char *rac_llama_chat_render(const rac_llama_chat *chat, const char *context_json, char **error);

// What llama-server does for a chat request: `request_json` holds messages and tools in OpenAI's
// shape and tool_choice, parallel_tool_calls, add_generation_prompt, enable_thinking,
// reasoning_format, json_schema, grammar and chat_template_kwargs. Returns a JSON object: prompt,
// format, format_name, grammar, grammar_lazy, grammar_triggers [{type, value, token}],
// preserved_tokens, additional_stops, generation_prompt, supports_thinking, thinking_start_tag,
// thinking_end_tags, parser, and caps (what the template reads and writes: supports_tools,
// supports_tool_calls, supports_parallel_tool_calls, supports_system_role, …).
char *rac_llama_chat_apply(const rac_llama_chat *chat, const char *request_json, char **error);

// The assistant message in `text`, the model's output for an apply result `params_json` (with
// reasoning_format added, "none", "auto" or "deepseek"): a JSON object with role, content,
// reasoning_content and tool_calls in OpenAI's shape. `partial` (non-zero) while the output may
// still grow: what is unfinished is left out rather than refused.
char *rac_llama_chat_parse(const char *params_json, const char *text, int partial, char **error);

void rac_llama_chat_free(rac_llama_chat *chat);
void rac_llama_chat_string_free(char *text);

#ifdef __cplusplus
}
#endif
