#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A language model loaded by a backend, ready to generate.
///
/// Backends implement this (usually as an actor holding the engine's handles). The LLM
/// capability above it owns everything that is not engine work: prompt formatting
/// choices, stop sequences, thinking extraction, metrics, events and streaming. Errors
/// a backend throws should be ``SDKException``s; anything else is wrapped.
@_spi(Backend) public protocol LLMService: Sendable {
    /// The model this service runs.
    var model: ModelInfo { get }
    /// Tokens the loaded context can hold (prompt plus generation).
    var contextLength: Int { get }

    /// Renders a conversation with the model's own chat template, ending with the
    /// assistant's turn opened when `addAssistantTurn` is true.
    func formatChat(_ messages: [ChatMessage], addAssistantTurn: Bool) async throws -> String

    /// ``formatChat(_:addAssistantTurn:)`` with the caller's reasoning choice passed to
    /// templates that read `enable_thinking` (`nil`: the template's default).
    func formatChat(
        _ messages: [ChatMessage],
        addAssistantTurn: Bool,
        reasoning: ReasoningMode?
    ) async throws
        -> String

    /// The tags around the model's reasoning in its output, as its template writes them.
    var reasoningTags: ReasoningTags { get }

    /// The conversation and tools written by the model's own template, with its call syntax
    /// as a grammar and the parser for its output; `nil` when the backend has no chat layer
    /// or the template writes no tools (the tool-calling loop then writes them itself, in a
    /// ``ToolCallFormat``).
    func prepareToolChat(_ request: ToolChatRequest) async throws -> ToolChatPlan?

    /// Number of tokens `text` becomes, special tokens included.
    func tokenCount(_ text: String) async throws -> Int

    /// Generates from an already formatted prompt, handing each sampled token's bytes
    /// to `onToken` on the generating thread; returning `.stop` ends generation after
    /// that token. Generation also ends when `request.cancellation` is set (checked
    /// before every token), at end of sequence, at `maxTokens`, or when the context is
    /// full.
    func generate(
        _ request: LLMServiceRequest,
        onToken: @escaping @Sendable (_ piece: [UInt8]) -> TokenDisposition
    ) async throws -> LLMServiceResult

    /// Frees the engine's resources. The service is unusable afterwards.
    func unload() async

    /// The model's own chat template (Jinja text), when it has one; the tool-calling loop
    /// reads it to use the model's native tool-call format.
    var chatTemplate: String? { get }

    /// How ``formatChat(_:addAssistantTurn:)`` formats: with the model's own template, or with
    /// a built-in fallback when the model's cannot be used.
    var promptFormatting: PromptFormatting { get }

    /// The natural-log probability of each continuation right after `prompt` (summed over
    /// its tokens): how likely the model finds each. Tool routing uses it to let the model
    /// score every tool name at the point where it would write one.
    func logLikelihoods(of continuations: [String], after prompt: String) async throws -> [Double]

    /// Loads the LoRA adapter file `file` under `id`, ready for requests to select; the LLM
    /// capability has checked it against the model (``LoraCompatibilityResult``) first.
    /// Loading an id again replaces its adapter.
    func loadLoRAAdapter(id: String, file: URL) async throws

    /// Frees adapter `id`; requests that select it afterwards fail.
    func unloadLoRAAdapter(id: String) async

    /// The adapters a request uses when it names none (``LLMServiceRequest/loraAdapters``
    /// is `nil`), and that scoring (``logLikelihoods(of:after:)``) uses.
    func setDefaultLoRAAdapters(_ adapters: [LoRAAdapterSelection]) async throws

    /// For a vision-language model, the text that stands for one image in a prompt (the LLM
    /// capability puts one per image before a turn's text; ``LLMServiceRequest/images`` holds
    /// the images in the same order). `nil` for a model that takes no images.
    var imageMarker: String? { get }
}

extension LLMService {
    /// No template by default.
    public var chatTemplate: String? { nil }

    /// The reasoning choice ignored by default.
    public func formatChat(
        _ messages: [ChatMessage],
        addAssistantTurn: Bool,
        reasoning: ReasoningMode?
    ) async throws
        -> String
    {
        try await formatChat(messages, addAssistantTurn: addAssistantTurn)
    }

    /// `<think>` and `</think>` by default.
    public var reasoningTags: ReasoningTags { .think }

    /// No chat layer by default.
    public func prepareToolChat(_ request: ToolChatRequest) async throws -> ToolChatPlan? { nil }

    /// The model's own format by default: a backend that formats with anything else says so.
    public var promptFormatting: PromptFormatting { .modelTemplate }

    /// No images by default.
    public var imageMarker: String? { nil }

    /// Unsupported by default.
    public func loadLoRAAdapter(id: String, file: URL) async throws {
        throw SDKException(.backendError, "\(model.framework.rawValue) cannot apply LoRA adapters")
    }

    /// Nothing to free by default.
    public func unloadLoRAAdapter(id: String) async {}

    /// Unsupported by default, except for no adapters at all.
    public func setDefaultLoRAAdapters(_ adapters: [LoRAAdapterSelection]) async throws {
        guard adapters.isEmpty else {
            throw SDKException(.backendError, "\(model.framework.rawValue) cannot apply LoRA adapters")
        }
    }

    /// Unsupported by default: routing then falls back to other signals.
    public func logLikelihoods(of continuations: [String], after prompt: String) async throws -> [Double] {
        throw SDKException(.backendError, "\(model.framework.rawValue) cannot score continuations")
    }
}

/// What `onToken` tells the generator.
@_spi(Backend) public enum TokenDisposition: Sendable {
    /// Keep generating.
    case `continue`
    /// End generation after this token.
    case stop
}
