import Foundation
import RunAnywhere

/// The sampling fields chat and legacy completions share, checked as OpenAI checks them and
/// turned into the SDK's options with OpenAI's defaults (temperature 1, top_p 1, no top-k,
/// no repetition penalty, generation until the end of sequence or the context is full).
struct GenerationParameters: Sendable {
    var maxTokens: Int?
    var maxTokensParam: String
    var temperature: Double?
    var topP: Double?
    var seed: Int64?
    var stop: [String]
    var n: Int?
    var ignoreEndOfSequence = false
    var reasoning: ReasoningMode?

    /// Most stop sequences a request may give, as OpenAI allows.
    static let maximumStopSequences = 4

    func options(contextLength: Int) throws(OpenAIError) -> LLMGenerationOptions {
        if let maxTokens, maxTokens < 1 {
            throw .invalid("'\(maxTokensParam)' must be at least 1 (got \(maxTokens))", param: maxTokensParam)
        }
        if let n, n != 1 {
            throw .invalid("Only n = 1 is supported (got \(n))", param: "n")
        }
        if let temperature, !(temperature.isFinite && (0...2).contains(temperature)) {
            throw .invalid("'temperature' must be between 0 and 2 (got \(temperature))", param: "temperature")
        }
        if let topP, !(topP.isFinite && topP > 0 && topP <= 1) {
            throw .invalid("'top_p' must be in (0, 1] (got \(topP))", param: "top_p")
        }
        guard stop.count <= Self.maximumStopSequences else {
            throw .invalid("'stop' takes at most \(Self.maximumStopSequences) sequences", param: "stop")
        }
        guard !stop.contains(where: \.isEmpty) else {
            throw .invalid("Stop sequences must not be empty", param: "stop")
        }
        return LLMGenerationOptions(
            maxTokens: min(maxTokens ?? contextLength, contextLength),
            temperature: Float(temperature ?? 1),
            topP: Float(topP ?? 1),
            topK: 0,
            repetitionPenalty: 1,
            // OpenAI seeds are 64-bit; the engine's are 32: fold the high half in.
            seed: seed.map { UInt32(truncatingIfNeeded: $0 ^ ($0 >> 32)) },
            stopSequences: stop,
            ignoreEndOfSequence: ignoreEndOfSequence,
            reasoning: reasoning
        )
    }
}

extension LLMFinishReason {
    /// OpenAI's `finish_reason` for this ending.
    var openAI: String {
        switch self {
        case .length, .contextFull: "length"
        case .stop, .stopSequence, .cancelled: "stop"
        }
    }
}
