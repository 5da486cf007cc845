/// Whether a model that can reason before it answers does so (``LLMGenerationOptions/reasoning``).
///
/// Templates that take `enable_thinking` (Qwen 3, SmolLM3, DeepSeek V3.1, GLM, Gemma 4 …)
/// receive it; for other models the choice changes nothing. Reasoning the model writes is
/// always kept apart from the answer: ``LLMGenerationResult/thinkingText``, stream tokens
/// marked `isThinking`, and the server's `reasoning_content`.
public enum ReasoningMode: String, Sendable, Codable, CaseIterable {
    /// Reason first (`enable_thinking: true`).
    case on
    /// Answer directly (`enable_thinking: false`; most templates then write an empty reasoning block).
    case off

    /// The value templates read as `enable_thinking`, `nil` for the model's default.
    package static func enableThinking(_ mode: ReasoningMode?) -> Bool? {
        mode.map { $0 == .on }
    }
}
