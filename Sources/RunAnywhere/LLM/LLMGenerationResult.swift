import Foundation

/// Why a generation ended.
public enum LLMFinishReason: String, Sendable, Codable, CaseIterable {
    /// The model ended its answer.
    case stop
    /// `maxTokens` was reached.
    case length
    /// A stop sequence was produced.
    case stopSequence = "stop_sequence"
    /// The context window filled up.
    case contextFull = "context_full"
    /// The caller cancelled.
    case cancelled
}

/// The outcome of a generation, with its metrics.
public struct LLMGenerationResult: Sendable, Codable, Equatable {
    /// The answer, without any `<think>` block and without a matched stop sequence.
    public var text: String
    /// What the model wrote inside `<think>…</think>`, if it did.
    public var thinkingContent: String?
    /// The model that generated.
    public var modelId: String
    /// Tokens in the prompt as evaluated.
    public var promptTokens: Int
    /// Tokens generated.
    public var generatedTokens: Int
    /// From the call to the first generated token, in milliseconds.
    public var timeToFirstTokenMs: Double
    /// Generation speed after the first token, in tokens per second.
    public var tokensPerSecond: Double
    /// Prompt processing speed, in tokens per second (prompt tokens over time to first token).
    public var promptTokensPerSecond: Double
    /// From the call to the end, in milliseconds.
    public var totalMs: Double
    /// Why generation ended.
    public var finishReason: LLMFinishReason

    public init(text: String, thinkingContent: String?, modelId: String, promptTokens: Int, generatedTokens: Int,
                timeToFirstTokenMs: Double, tokensPerSecond: Double, promptTokensPerSecond: Double, totalMs: Double,
                finishReason: LLMFinishReason) {
        self.text = text
        self.thinkingContent = thinkingContent
        self.modelId = modelId
        self.promptTokens = promptTokens
        self.generatedTokens = generatedTokens
        self.timeToFirstTokenMs = timeToFirstTokenMs
        self.tokensPerSecond = tokensPerSecond
        self.promptTokensPerSecond = promptTokensPerSecond
        self.totalMs = totalMs
        self.finishReason = finishReason
    }
}

/// What a generation stream delivers: text as it is produced, then the result.
public enum LLMStreamEvent: Sendable, Equatable {
    /// A piece of text. Pieces of the answer concatenate to the final result's `text`;
    /// pieces with `isThinking` belong to the `<think>` block.
    case token(text: String, isThinking: Bool)
    /// The generation ended; always the last event of a stream that did not fail.
    case completed(LLMGenerationResult)
}
