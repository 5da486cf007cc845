#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The outcome of a generation, with its metrics.
public struct LLMGenerationResult: Sendable, Codable, Equatable {
    /// The answer, without any `<think>` block and without a matched stop sequence.
    public var text: String
    /// What the model wrote inside its reasoning block (`<think>…</think>` or its template's own
    /// tags), if it did.
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
    /// For a vision-language model (``RunAnywhereSDK/processImage(_:options:)``), how many of
    /// ``promptTokens`` the images became; `nil` for a language model.
    public var imageTokens: Int?
    /// Where the generation ran: this device or a remote server (``RoutingPolicy``).
    public var executedOn: ExecutionTarget = .local
    /// How the conversation became the prompt: the model's own chat template, llama.cpp's
    /// built-in formats when the model's could not be used, or none; `nil` when not known.
    public var promptFormatting: PromptFormatting?
    /// Tool calls a remote server made natively; the tool-calling loop reads them.
    var toolCalls: [ToolCall] = []
    /// Everything the model wrote, reasoning and its tags included (a stop sequence and what
    /// follows it left out): what a chat layer's parser reads.
    var rawText = ""

    /// The reasoning the model wrote apart from its answer (``thinkingContent``), `nil` when
    /// it wrote none.
    public var thinkingText: String? { thinkingContent }

    /// The JSON keys are snake_case, as `runanywhere generate --json` and the README document them.
    enum CodingKeys: String, CodingKey {
        case text
        case thinkingContent = "thinking_content"
        case modelId = "model_id"
        case promptTokens = "prompt_tokens"
        case generatedTokens = "tokens_generated"
        case timeToFirstTokenMs = "time_to_first_token_ms"
        case tokensPerSecond = "tokens_per_second"
        case promptTokensPerSecond = "prompt_tokens_per_second"
        case totalMs = "total_ms"
        case finishReason = "finish_reason"
        case imageTokens = "image_tokens"
        case executedOn = "executed_on"
        case promptFormatting = "prompt_formatting"
    }

    /// Decodes a result; `executed_on` is optional (`local`), as is `prompt_formatting`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        text = try container.decode(String.self, forKey: .text)
        thinkingContent = try container.decodeIfPresent(String.self, forKey: .thinkingContent)
        modelId = try container.decode(String.self, forKey: .modelId)
        promptTokens = try container.decode(Int.self, forKey: .promptTokens)
        generatedTokens = try container.decode(Int.self, forKey: .generatedTokens)
        timeToFirstTokenMs = try container.decode(Double.self, forKey: .timeToFirstTokenMs)
        tokensPerSecond = try container.decode(Double.self, forKey: .tokensPerSecond)
        promptTokensPerSecond = try container.decode(Double.self, forKey: .promptTokensPerSecond)
        totalMs = try container.decode(Double.self, forKey: .totalMs)
        finishReason = try container.decode(LLMFinishReason.self, forKey: .finishReason)
        imageTokens = try container.decodeIfPresent(Int.self, forKey: .imageTokens)
        executedOn = try container.decodeIfPresent(ExecutionTarget.self, forKey: .executedOn) ?? .local
        promptFormatting = try container.decodeIfPresent(PromptFormatting.self, forKey: .promptFormatting)
    }

    /// Creates a result; the LLM capability makes these.
    public init(
        text: String,
        thinkingContent: String?,
        modelId: String,
        promptTokens: Int,
        generatedTokens: Int,
        timeToFirstTokenMs: Double,
        tokensPerSecond: Double,
        promptTokensPerSecond: Double,
        totalMs: Double,
        finishReason: LLMFinishReason,
        imageTokens: Int? = nil
    ) {
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
        self.imageTokens = imageTokens
    }
}
