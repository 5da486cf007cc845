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
    /// Whether the template writes reasoning (`<think>` or its own tags) the parser keeps apart.
    public var supportsThinking: Bool { parameters["supports_thinking"]?.boolValue ?? false }

    let parameters: JSONValue

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

/// An assistant turn read from a model's output (``PreparedChat/parse(_:partial:)``).
public struct ParsedReply: Sendable, Equatable {
    /// The answer text.
    public var content: String
    /// The reasoning the model wrote apart from the answer, if any.
    public var reasoning: String?
    /// The calls, in order, their arguments parsed.
    public var toolCalls: [ToolCall]

    /// Reads an OpenAI-style assistant message (`content`, `reasoning_content`, `tool_calls`);
    /// `partial` leaves out a call whose arguments are still being written.
    init(openAI message: JSONValue, partial: Bool) throws(SDKException) {
        content = message["content"]?.stringValue ?? ""
        reasoning = message["reasoning_content"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let calls = message["tool_calls"]?.arrayValue ?? []
        toolCalls = []
        for (index, call) in calls.enumerated() {
            let name = call["function"]?["name"]?.stringValue ?? ""
            let argumentsText = call["function"]?["arguments"]?.stringValue ?? "{}"
            let arguments: JSONValue
            do {
                arguments = try JSONValue(parsing: argumentsText.isEmpty ? "{}" : argumentsText)
            } catch {
                if partial { continue }
                throw SDKException(.invalidStructuredOutput, "The arguments of call \(index) are not JSON")
            }
            let id = call["id"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? "call_\(index)"
            toolCalls.append(ToolCall(id: id, name: name, arguments: arguments))
        }
    }
}
