#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the backend reports when a generation ends.
@_spi(Backend) public struct LLMServiceResult: Sendable, Equatable {
    /// Tokens of the prompt that were evaluated (after any truncation).
    public var promptTokens: Int
    /// Tokens sampled and handed to `onToken` (end-of-sequence not counted).
    public var generatedTokens: Int
    /// Why generation ended.
    public var stopReason: StopReason
    /// Prompt tokens dropped to fit the context.
    public var truncatedPromptTokens: Int
    /// Of ``promptTokens``, the positions the request's images took.
    public var imageTokens: Int
    /// Calls of the request's tools (``LLMServiceRequest/tools``), for a backend that calls
    /// them natively; the text handed to `onToken` is then the turn's content alone.
    public var toolCalls: [ToolCall]

    /// Why a generation ended, as the engine sees it.
    public enum StopReason: Sendable, Equatable {
        /// The model produced an end-of-sequence token.
        case endOfSequence
        /// Generation hit `maxTokens`.
        case maxTokens
        /// The context has no room for another token.
        case contextFull
        /// The request's cancellation flag was set.
        case cancelled
        /// `onToken` returned `.stop`.
        case callback
    }

    /// Creates a result.
    public init(
        promptTokens: Int,
        generatedTokens: Int,
        stopReason: StopReason,
        truncatedPromptTokens: Int = 0,
        imageTokens: Int = 0,
        toolCalls: [ToolCall] = []
    ) {
        self.promptTokens = promptTokens
        self.generatedTokens = generatedTokens
        self.stopReason = stopReason
        self.truncatedPromptTokens = truncatedPromptTokens
        self.imageTokens = imageTokens
        self.toolCalls = toolCalls
    }
}
