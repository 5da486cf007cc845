// The C face of llama.cpp's chat layer declared in rac_llama_chat.h. scripts/bootstrap compiles
// this one file against the headers and libllama-common of the llama.cpp it installed; it calls
// only common/chat.h and the Jinja engine, and turns every C++ exception into an error string.
#include "rac_llama_chat.h"

#include "chat.h"
#include "log.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>

struct rac_llama_chat {
    // The template exactly as written, rendered with the caller's variables and nothing added.
    std::unique_ptr<common_chat_template> plain;
    // llama-server's view of the same template: tool and reasoning formats, grammar, parser.
    common_chat_templates_ptr templates;
};

namespace {

char *copy(const std::string &text) {
    char *out = static_cast<char *>(std::malloc(text.size() + 1));
    if (out == nullptr) {
        return nullptr;
    }
    std::memcpy(out, text.data(), text.size());
    out[text.size()] = '\0';
    return out;
}

void fail(char **error, const std::string &message) {
    if (error != nullptr) {
        *error = copy(message);
    }
}

// Runs `body`; a C++ exception becomes `*error` and a NULL result.
template <typename Body>
auto guarded(char **error, Body &&body) -> decltype(body()) {
    try {
        return body();
    } catch (const std::exception &exception) {
        fail(error, exception.what());
    } catch (...) {
        fail(error, "an unknown C++ exception");
    }
    return nullptr;
}

// The chat layer logs its warnings on a thread of its own to stderr; its failures reach the
// caller as exceptions, so its log stays off (a paused log discards what it is given).
void quiet_log() {
    static std::once_flag once;
    std::call_once(once, [] { common_log_pause(common_log_main()); });
}

std::string token_text(const llama_vocab *vocab, llama_token token) {
    return token == LLAMA_TOKEN_NULL ? std::string() : common_token_to_piece(vocab, token, true);
}

common_json strings(const std::vector<std::string> &values) {
    common_json array = common_json::array();
    for (const auto &value : values) {
        array.push_back(value);
    }
    return array;
}

const char *trigger_type(common_grammar_trigger_type type) {
    switch (type) {
        case COMMON_GRAMMAR_TRIGGER_TYPE_TOKEN:
            return "token";
        case COMMON_GRAMMAR_TRIGGER_TYPE_WORD:
            return "word";
        case COMMON_GRAMMAR_TRIGGER_TYPE_PATTERN:
            return "pattern";
        case COMMON_GRAMMAR_TRIGGER_TYPE_PATTERN_FULL:
            return "pattern_full";
    }
    return "word";
}

}  // namespace

extern "C" rac_llama_chat *rac_llama_chat_init(
    const llama_model *model, const char *source, const char *bos, const char *eos, char **error) {
    return guarded(error, [&]() -> rac_llama_chat * {
        quiet_log();
        std::string text = source != nullptr ? source : "";
        std::string bos_text = bos != nullptr ? bos : "";
        std::string eos_text = eos != nullptr ? eos : "";
        if (model != nullptr) {
            if (text.empty()) {
                const char *own = llama_model_chat_template(model, nullptr);
                if (own == nullptr || *own == '\0') {
                    fail(error, "the model carries no chat template (tokenizer.chat_template)");
                    return nullptr;
                }
                text = own;
            }
            const llama_vocab *vocab = llama_model_get_vocab(model);
            bos_text = token_text(vocab, llama_vocab_bos(vocab));
            eos_text = token_text(vocab, llama_vocab_eos(vocab));
        } else if (text.empty()) {
            fail(error, "no template text");
            return nullptr;
        }
        auto chat = std::make_unique<rac_llama_chat>();
        chat->plain = std::make_unique<common_chat_template>(text, bos_text, eos_text);
        // With a model and no text of the app's, llama.cpp reads the model's templates itself,
        // the "tool_use" variant included.
        chat->templates = common_chat_templates_init(model, source != nullptr ? text : "", bos_text, eos_text);
        return chat.release();
    });
}

extern "C" char *rac_llama_chat_source(const rac_llama_chat *chat, char **error) {
    return guarded(error, [&]() -> char * {
        if (chat == nullptr) {
            fail(error, "no template");
            return nullptr;
        }
        return copy(chat->plain->source());
    });
}

extern "C" char *rac_llama_chat_tokens(const rac_llama_chat *chat, char **error) {
    return guarded(error, [&]() -> char * {
        if (chat == nullptr) {
            fail(error, "no template");
            return nullptr;
        }
        common_json tokens = common_json::object();
        tokens["bos_token"] = chat->plain->bos_token();
        tokens["eos_token"] = chat->plain->eos_token();
        return copy(tokens.dump());
    });
}

extern "C" char *rac_llama_chat_render(const rac_llama_chat *chat, const char *context_json, char **error) {
    return guarded(error, [&]() -> char * {
        if (chat == nullptr || context_json == nullptr) {
            fail(error, "no template or no variables");
            return nullptr;
        }
        const common_json variables = common_json::parse(context_json);
        if (!variables.is_object()) {
            fail(error, "the template's variables must be a JSON object");
            return nullptr;
        }
        jinja::context context(chat->plain->source());
        jinja::global_from_json(context, variables, false);
        jinja::runtime runtime(context);
        const jinja::value results = runtime.execute(chat->plain->prog);
        return copy(jinja::runtime::gather_string_parts(results)->as_string().str());
    });
}

extern "C" char *rac_llama_chat_apply(const rac_llama_chat *chat, const char *request_json, char **error) {
    return guarded(error, [&]() -> char * {
        if (chat == nullptr || request_json == nullptr) {
            fail(error, "no template or no request");
            return nullptr;
        }
        const common_json request = common_json::parse(request_json);
        common_chat_templates_inputs inputs;
        inputs.messages = common_chat_msgs_parse_oaicompat(request.at("messages"));
        if (request.contains("tools") && !request.at("tools").is_null()) {
            inputs.tools = common_chat_tools_parse_oaicompat(request.at("tools"));
        }
        inputs.tool_choice = common_chat_tool_choice_parse_oaicompat(request.value("tool_choice", "auto"));
        inputs.parallel_tool_calls = request.value("parallel_tool_calls", false);
        inputs.add_generation_prompt = request.value("add_generation_prompt", true);
        inputs.enable_thinking = request.value("enable_thinking", true);
        inputs.reasoning_format = common_reasoning_format_from_name(request.value("reasoning_format", "none"));
        inputs.json_schema = request.value("json_schema", "");
        inputs.grammar = request.value("grammar", "");
        if (request.contains("chat_template_kwargs")) {
            for (const auto &[key, value] : request.at("chat_template_kwargs").items()) {
                inputs.chat_template_kwargs[key] = value.dump();
            }
        }
        const common_chat_params params = common_chat_templates_apply(chat->templates.get(), inputs);

        common_json triggers = common_json::array();
        for (const auto &trigger : params.grammar_triggers) {
            common_json item = common_json::object();
            item["type"] = trigger_type(trigger.type);
            item["value"] = trigger.value;
            item["token"] = trigger.token;
            triggers.push_back(item);
        }
        common_json out = common_json::object();
        out["prompt"] = params.prompt;
        out["format"] = static_cast<int>(params.format);
        out["format_name"] = common_chat_format_name(params.format);
        out["grammar"] = params.grammar;
        out["grammar_lazy"] = params.grammar_lazy;
        out["grammar_triggers"] = triggers;
        out["preserved_tokens"] = strings(params.preserved_tokens);
        out["additional_stops"] = strings(params.additional_stops);
        out["generation_prompt"] = params.generation_prompt;
        out["supports_thinking"] = params.supports_thinking;
        out["thinking_start_tag"] = params.thinking_start_tag;
        out["thinking_end_tags"] = strings(params.thinking_end_tags);
        out["parser"] = params.parser;
        common_json caps = common_json::object();
        for (const auto &[name, value] : common_chat_templates_get_caps(chat->templates.get())) {
            caps[name] = value;
        }
        out["caps"] = caps;
        return copy(out.dump());
    });
}

extern "C" char *rac_llama_chat_parse(const char *params_json, const char *text, int partial, char **error) {
    return guarded(error, [&]() -> char * {
        if (params_json == nullptr || text == nullptr) {
            fail(error, "no parameters or no text");
            return nullptr;
        }
        quiet_log();
        const common_json params = common_json::parse(params_json);
        const int format = params.value("format", 0);
        if (format < 0 || format >= COMMON_CHAT_FORMAT_COUNT) {
            fail(error, "unknown chat format " + std::to_string(format));
            return nullptr;
        }
        common_chat_parser_params parser;
        parser.format = static_cast<common_chat_format>(format);
        parser.generation_prompt = params.value("generation_prompt", "");
        parser.reasoning_format = common_reasoning_format_from_name(params.value("reasoning_format", "none"));
        const std::string arena = params.value("parser", "");
        if (!arena.empty()) {
            parser.parser.load(arena);
        }
        const common_chat_msg message = common_chat_parse(text, partial != 0, parser);
        return copy(message.to_json_oaicompat().dump());
    });
}

extern "C" void rac_llama_chat_free(rac_llama_chat *chat) {
    delete chat;
}

extern "C" void rac_llama_chat_string_free(char *text) {
    std::free(text);
}
