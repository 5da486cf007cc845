internal import CLlama
@_spi(Backend) import RunAnywhere
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A chat template: the Jinja program that turns a conversation into the prompt text a model
/// was trained on, rendered by llama.cpp's own Jinja engine (the one llama-server runs).
///
/// Made from a GGUF file's `tokenizer.chat_template` or from template text, it renders the
/// same text that Hugging Face transformers' `apply_chat_template` gives for the same
/// conversation:
///
/// ```swift
/// let template = try ChatTemplate(modelFile: "/models/qwen3-0.6b.gguf")
/// let prompt = try template.render(
///     messages: [.system("Answer briefly."), .user("What is 2 + 2?")],
///     options: ChatTemplateOptions(variables: ["enable_thinking": false])
/// )
/// ```
///
/// The variables are the ones transformers passes (``variables(messages:tools:options:)``):
/// `messages`, `tools`, `documents`, `add_generation_prompt`, `bos_token`, `eos_token`, and the
/// options' own variables. A template that raises (`raise_exception`) or cannot run is a typed
/// error, never a different prompt.
public struct ChatTemplate: Sendable {
    /// The template's Jinja text.
    public let source: String
    /// The text of the model's beginning-of-sequence token (`bos_token` in the template).
    public let bosToken: String
    /// The text of the model's end-of-sequence token (`eos_token` in the template).
    public let eosToken: String

    private let handle: Handle

    /// A template from its Jinja text, with the token texts it refers to.
    ///
    /// - Throws: `.invalidInput` when the text does not parse; `.backendError` when llama.cpp's
    ///   chat library cannot be opened.
    public init(source: String, bosToken: String = "", eosToken: String = "") throws(SDKException) {
        guard !source.isEmpty else {
            throw SDKException(.invalidInput, "A chat template needs its Jinja text; it is empty")
        }
        try self.init(handle: Handle(model: nil, source: source, bos: bosToken, eos: eosToken))
    }

    /// The template a GGUF model file carries (`tokenizer.chat_template`), with the model's own
    /// BOS and EOS texts. Only the file's vocabulary is read, not its weights.
    ///
    /// - Throws: `.modelFileNotFound` or `.modelLoadFailed` for the file; `.invalidInput` when
    ///   the model carries no template (pass one with ``init(source:bosToken:eosToken:)``) or
    ///   its template does not parse.
    public init(modelFile path: String) throws(SDKException) {
        guard access(path, R_OK) == 0 else {
            throw SDKException(.modelFileNotFound, "No model file at \(path)")
        }
        let functions = try LlamaCPP.ensureBackend()
        var parameters = functions.llama_model_default_params()
        parameters.vocab_only = true
        guard let model = functions.llama_model_load_from_file(path, parameters) else {
            throw SDKException(
                .modelLoadFailed,
                "llama.cpp could not read the vocabulary of \(path)",
                recovery: "The file may be truncated or not a llama.cpp GGUF model"
            )
        }
        defer { functions.llama_model_free(model) }
        try self.init(loadedModel: model)
    }

    /// The template of a model llama.cpp has loaded (`llama_model *`, which the template does
    /// not keep), or `source` with that model's BOS and EOS texts.
    init(loadedModel model: OpaquePointer, source: String? = nil) throws(SDKException) {
        try self.init(handle: Handle(model: model, source: source, bos: nil, eos: nil))
    }

    /// The template of a registered GGUF model (``init(modelFile:)`` on its file).
    ///
    /// - Throws: `.modelNotFound`, or `.modelFileNotFound` when the model is not on disk,
    ///   then as ``init(modelFile:)``.
    public init(model id: String, in sdk: RunAnywhereSDK) throws(SDKException) {
        let model = try sdk.model(id)
        guard let path = model.localPath?.path else {
            throw SDKException(
                .modelFileNotFound,
                "Model '\(id)' is not on disk",
                recovery: "Download it first: runanywhere models download \(id)"
            )
        }
        try self.init(modelFile: path)
    }

    private init(handle: Handle) throws(SDKException) {
        self.handle = handle
        source = try handle.call { functions, chat, error in functions.rac_llama_chat_source(chat, error) }
        let tokensText = try handle.call { functions, chat, error in functions.rac_llama_chat_tokens(chat, error) }
        let tokens = try? JSONValue(parsing: tokensText)
        bosToken = tokens?["bos_token"]?.stringValue ?? ""
        eosToken = tokens?["eos_token"]?.stringValue ?? ""
    }

    /// The prompt text for a conversation.
    ///
    /// - Parameters:
    ///   - messages: The conversation, oldest first.
    ///   - tools: Tools the model may call, passed as `tools` in OpenAI's shape.
    ///   - options: Whether to open the assistant's turn, and the template's own variables.
    /// - Throws: `.invalidInput` when the template refuses the conversation (its own
    ///   `raise_exception`, e.g. roles that do not alternate) or fails to run.
    public func render(
        messages: [ChatMessage],
        tools: [ToolDefinition] = [],
        options: ChatTemplateOptions = ChatTemplateOptions()
    ) throws(SDKException) -> String {
        try render(variables: variables(messages: messages, tools: tools, options: options))
    }

    /// The text the template gives for exactly these variables, a JSON object.
    ///
    /// - Throws: `.invalidInput` when `variables` is not an object or the template fails.
    public func render(variables: JSONValue) throws(SDKException) -> String {
        guard case .object = variables else {
            throw SDKException(.invalidInput, "A chat template's variables must be a JSON object")
        }
        let text = variables.jsonText()
        return try handle.call { functions, chat, error in functions.rac_llama_chat_render(chat, text, error) }
    }

    /// What llama-server makes of a chat request with this template: the prompt (tools written
    /// by the template itself), and, when the template has a tool-call syntax llama.cpp knows,
    /// that syntax as a grammar and the parser that reads the model's output back into text,
    /// reasoning and `ToolCall`s (``PreparedChat/parse(_:partial:)``).
    ///
    /// - Parameters:
    ///   - messages: The conversation, oldest first.
    ///   - tools: Tools the model may call.
    ///   - toolChoice: `.none`, `.auto`, or `.required` (a named tool is `.required` here:
    ///     the caller keeps only that tool).
    ///   - parallelToolCalls: Whether the grammar allows more than one call.
    ///   - options: Whether to open the assistant's turn, and the template's own variables
    ///     (`enable_thinking` among them: it defaults to on, as in llama-server).
    /// - Throws: `.invalidInput` when the template refuses the conversation or llama.cpp
    ///   cannot read its tool syntax.
    public func prepare(
        messages: [ChatMessage],
        tools: [ToolDefinition] = [],
        toolChoice: ToolChoice = .auto,
        parallelToolCalls: Bool = false,
        options: ChatTemplateOptions = ChatTemplateOptions()
    ) throws(SDKException) -> PreparedChat {
        let choice: String =
            switch toolChoice {
            case .none: "none"
            case .auto: "auto"
            case .required, .tool: "required"
            }
        var request: JSONObject = [
            "messages": Self.messagesValue(messages),
            "add_generation_prompt": .bool(options.addGenerationPrompt),
            "tool_choice": .string(choice),
            "parallel_tool_calls": .bool(parallelToolCalls),
            "reasoning_format": .string(Self.reasoningFormat),
        ]
        if !tools.isEmpty { request["tools"] = .array(tools.map(\.openAIValue)) }
        var kwargs = options.variables
        if case .bool(let thinking) = kwargs.removeValue(forKey: "enable_thinking") {
            request["enable_thinking"] = .bool(thinking)
        }
        if !kwargs.isEmpty {
            request["chat_template_kwargs"] = .object(
                JSONObject(kwargs.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            )
        }
        let text = JSONValue.object(request).jsonText()
        let response = try handle.call { functions, chat, error in functions.rac_llama_chat_apply(chat, text, error) }
        guard let parameters = try? JSONValue(parsing: response), parameters["prompt"]?.stringValue != nil else {
            throw SDKException(.backendError, "llama.cpp's chat layer gave no prompt")
        }
        return PreparedChat(parameters: parameters)
    }

    /// The prompt llama-server evaluates for a conversation with no tools; `enableThinking`
    /// `nil` leaves the template's default.
    func prompt(
        messages: [ChatMessage],
        addGenerationPrompt: Bool,
        enableThinking: Bool? = nil
    ) throws(SDKException)
        -> String
    {
        let variables: [String: JSONValue] = enableThinking.map { ["enable_thinking": .bool($0)] } ?? [:]
        let options = ChatTemplateOptions(addGenerationPrompt: addGenerationPrompt, variables: variables)
        return try prepare(messages: messages, options: options).prompt
    }

    /// The variables transformers' `apply_chat_template` passes for a conversation: `messages`
    /// (tool calls with their arguments as objects; a tool result with the name of the call it
    /// answers; images as `{"type": "image"}` parts before the text), `tools` (or null),
    /// `documents` (null), `add_generation_prompt`, `bos_token`, `eos_token`, then the options'
    /// variables, which win over all of these.
    public func variables(
        messages: [ChatMessage],
        tools: [ToolDefinition] = [],
        options: ChatTemplateOptions = ChatTemplateOptions()
    ) -> JSONValue {
        var object: JSONObject = [
            "messages": Self.messagesValue(messages),
            "tools": tools.isEmpty ? .null : .array(tools.map(\.openAIValue)),
            "documents": .null,
            "add_generation_prompt": .bool(options.addGenerationPrompt),
            "bos_token": .string(bosToken),
            "eos_token": .string(eosToken),
        ]
        for (name, value) in options.variables.sorted(by: { $0.key < $1.key }) {
            object[name] = value
        }
        return .object(object)
    }

    /// How llama.cpp's chat layer reads reasoning: always apart from the answer (never spoken,
    /// never shown as text), when the template is applied and when the output is parsed.
    static let reasoningFormat = "auto"

    /// The conversation as transformers passes it (see ``variables(messages:tools:options:)``).
    private static func messagesValue(_ messages: [ChatMessage]) -> JSONValue {
        var names: [String: String] = [:]
        for message in messages {
            for call in message.toolCalls ?? [] { names[call.id] = call.name }
        }
        return .array(messages.map { messageValue($0, callNames: names) })
    }

    private static func messageValue(_ message: ChatMessage, callNames: [String: String]) -> JSONValue {
        var object: JSONObject = ["role": .string(message.role.rawValue)]
        if let images = message.images, !images.isEmpty {
            let parts = images.map { _ in JSONValue.object(["type": "image"]) }
            object["content"] = .array(parts + [.object(["type": "text", "text": .string(message.content)])])
        } else {
            object["content"] = .string(message.content)
        }
        if let calls = message.toolCalls, !calls.isEmpty {
            object["tool_calls"] = .array(
                calls.map { call in
                    [
                        "id": .string(call.id),
                        "type": "function",
                        "function": ["name": .string(call.name), "arguments": call.arguments],
                    ]
                }
            )
        }
        if let id = message.toolCallId {
            object["tool_call_id"] = .string(id)
            if let name = callNames[id] { object["name"] = .string(name) }
        }
        return .object(object)
    }
}

/// How a ``ChatTemplate`` renders a conversation.
public struct ChatTemplateOptions: Sendable, Equatable {
    /// Whether the prompt ends by opening the assistant's turn (`add_generation_prompt`), as a
    /// prompt for generation does; off to render a finished conversation.
    public var addGenerationPrompt: Bool
    /// The template's own variables, e.g. `enable_thinking: false` for Qwen 3 or a
    /// `reasoning_effort`; they are passed as given and win over the standard ones.
    public var variables: [String: JSONValue]

    /// Creates options.
    public init(addGenerationPrompt: Bool = true, variables: [String: JSONValue] = [:]) {
        self.addGenerationPrompt = addGenerationPrompt
        self.variables = variables
    }
}

extension ChatTemplate {
    /// One template in llama.cpp's chat library, freed with the last copy of the template.
    final class Handle: Sendable {
        private let functions: NativeFunctions<rac_llama_chat_functions>
        // Read-only after init; the shim's calls on it make a fresh Jinja context each time,
        // but a lock keeps two threads out of the one C++ object all the same.
        private nonisolated(unsafe) let chat: OpaquePointer
        private let lock = Mutex(())

        init(model: OpaquePointer?, source: String?, bos: String?, eos: String?) throws(SDKException) {
            // libllama and ggml first, by the path the bootstrap recorded: the chat library
            // then finds them open by their sonames (libllama-common records no path to them).
            _ = try LlamaCPP.ensureBackend()
            functions = try LlamaChatLibrary.load()
            var made: OpaquePointer?
            let reason = Self.strings(functions) { [functions] error in
                made = functions.rac_llama_chat_init(model, source, bos, eos, error)
                return nil
            }.error
            guard let chat = made else {
                throw SDKException(
                    .invalidInput,
                    "The chat template cannot be used: \(reason ?? "no reason given")",
                    recovery: "Pass a template of your own (ChatTemplate(source:)) or check its Jinja text"
                )
            }
            self.chat = chat
        }

        deinit {
            functions.rac_llama_chat_free(chat)
        }

        /// Calls a shim function that returns a string it allocated, or NULL and an error.
        func call(
            _ body: (
                NativeFunctions<rac_llama_chat_functions>, OpaquePointer,
                UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
            ) -> UnsafeMutablePointer<CChar>?
        ) throws(SDKException) -> String {
            let (text, failure) = lock.withLock { _ in Self.strings(functions) { body(functions, chat, $0) } }
            guard let text else {
                throw SDKException(.invalidInput, "The chat template failed: \(failure ?? "no reason given")")
            }
            return text
        }

        /// Runs a shim function that returns a string it allocated, or NULL and an error it
        /// allocated: both as Swift strings, the C strings freed by the library.
        static func strings(
            _ functions: NativeFunctions<rac_llama_chat_functions>,
            _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> UnsafeMutablePointer<CChar>?
        ) -> (text: String?, error: String?) {
            var error: UnsafeMutablePointer<CChar>?
            let result = body(&error)
            let take = { (pointer: UnsafeMutablePointer<CChar>?) -> String? in
                guard let pointer else { return nil }
                defer { functions.rac_llama_chat_string_free(pointer) }
                return String(cString: pointer)
            }
            return (take(result), take(error))
        }
    }
}
