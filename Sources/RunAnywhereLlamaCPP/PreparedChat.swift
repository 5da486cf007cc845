internal import CLlama
@_spi(Backend) import RunAnywhere

/// A chat request as llama.cpp's chat layer prepared it (``ChatTemplate/prepare(messages:tools:toolChoice:parallelToolCalls:options:)``):
/// the prompt, the model's own tool-call syntax as a grammar, and the parser for its output.
///
/// The syntax is the one the template writes: Hermes and Qwen `<tool_call>` JSON, Llama 3.x
/// JSON, Mistral `[TOOL_CALLS]`, Functionary `<function=…>`, DeepSeek's tool-call tokens,
/// GPT-OSS channels and the other formats llama-server reads.
public struct PreparedChat: Sendable {
    /// A phrase or pattern of the model's output that switches a lazy grammar on.
    public struct Trigger: Sendable, Equatable {
        /// How ``value`` is matched: `word` (literal text), `pattern` (a regular expression
        /// anywhere), `pattern_full` (one that matches the whole output) or `token`.
        public var kind: String
        /// The text or the regular expression.
        public var value: String
    }

    /// The prompt text the model reads.
    public var prompt: String { parameters["prompt"]?.stringValue ?? "" }
    /// llama.cpp's name for the output format (`peg-native`, `content-only`, …).
    public var formatName: String { parameters["format_name"]?.stringValue ?? "" }
    /// The model's call syntax as a GBNF grammar (root rule `root`), or nil when the request
    /// has no tools or the format has none.
    public var grammar: String? { parameters["grammar"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } }
    /// Whether ``grammar`` applies only once a ``triggers`` phrase appears (the model may
    /// answer in text first), rather than from the first token.
    public var grammarIsLazy: Bool { parameters["grammar_lazy"]?.boolValue ?? false }
    /// What switches a lazy grammar on.
    public var triggers: [Trigger] {
        (parameters["grammar_triggers"]?.arrayValue ?? []).map {
            Trigger(kind: $0["type"]?.stringValue ?? "word", value: $0["value"]?.stringValue ?? "")
        }
    }
    /// The part of ``prompt`` that opens the assistant's turn (the parser reads the output as
    /// its continuation).
    public var generationPrompt: String { parameters["generation_prompt"]?.stringValue ?? "" }
    /// Special tokens of the format whose text the output must keep for the parser.
    public var preservedTokens: [String] {
        (parameters["preserved_tokens"]?.arrayValue ?? []).compactMap(\.stringValue)
    }
    /// Texts that end the model's turn in this format, besides its end-of-turn token.
    public var additionalStops: [String] {
        (parameters["additional_stops"]?.arrayValue ?? []).compactMap(\.stringValue).filter { !$0.isEmpty }
    }
    /// Whether the template writes reasoning (`<think>` or its own tags) the parser keeps apart.
    public var supportsThinking: Bool { parameters["supports_thinking"]?.boolValue ?? false }
    /// Whether the template itself writes the tools and the calls in the history (its own
    /// tool syntax), rather than llama.cpp adding a generic JSON one.
    public var templateWritesTools: Bool {
        parameters["caps"]?["supports_tools"]?.boolValue == true
            && parameters["caps"]?["supports_tool_calls"]?.boolValue == true
    }
    /// The tags around reasoning in the model's output, when the template writes reasoning.
    public var reasoningTags: (open: String, close: [String])? {
        guard supportsThinking, let open = parameters["thinking_start_tag"]?.stringValue, !open.isEmpty else {
            return nil
        }
        let close = (parameters["thinking_end_tags"]?.arrayValue ?? []).compactMap(\.stringValue)
        return (open, close)
    }

    let parameters: JSONValue

    /// ``grammar`` as the sampler takes it, with what llama-server adds: a lazy grammar's
    /// triggers as regular expressions; for a grammar that applies at once, the turn's opening
    /// (``generationPrompt``), which its root starts with. `nil` when there is no grammar or
    /// a lazy one has nothing to wake it.
    var samplingGrammar: LLMGrammar? {
        guard let gbnf = grammar else { return nil }
        var sampling = LLMGrammar(gbnf)
        guard grammarIsLazy else {
            sampling.prefix = generationPrompt
            return sampling
        }
        sampling.triggerExpressions = triggers.compactMap { trigger in
            guard !trigger.value.isEmpty else { return nil }
            switch trigger.kind {
            case "pattern":
                return trigger.value
            case "pattern_full":
                let head = trigger.value.hasPrefix("^") ? "" : "^"
                let tail = trigger.value.hasSuffix("$") ? "" : "$"
                return head + trigger.value + tail
            default:  // a word, or a token by its text
                return LLMGrammar.literalPattern(trigger.value)
            }
        }
        return sampling.triggerExpressions.isEmpty ? nil : sampling
    }

    /// The model's output read back: its text, its reasoning and its tool calls.
    ///
    /// - Parameters:
    ///   - output: What the model wrote after ``prompt``.
    ///   - partial: Whether the output may still grow (streaming): an unfinished call is
    ///     left out rather than refused.
    /// - Throws: `.invalidStructuredOutput` when finished output does not follow the format.
    public func parse(_ output: String, partial: Bool = false) throws(SDKException) -> ParsedReply {
        guard case .object(var request) = parameters else {
            throw SDKException(.backendError, "A prepared chat has no parameters")
        }
        request["reasoning_format"] = .string(ChatTemplate.reasoningFormat)
        let text = JSONValue.object(request).jsonText()
        let functions = try LlamaChatLibrary.load()
        let (reply, failure) = ChatTemplate.Handle.strings(functions) {
            functions.rac_llama_chat_parse(text, output, partial ? 1 : 0, $0)
        }
        guard let reply else {
            throw SDKException(
                .invalidStructuredOutput,
                "The output does not follow the model's \(formatName) format: \(failure ?? "no reason given")"
            )
        }
        guard let message = try? JSONValue(parsing: reply) else {
            throw SDKException(.backendError, "llama.cpp's chat layer gave a reply that is not JSON")
        }
        return try ParsedReply(openAI: message, partial: partial)
    }
}
