#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a generation stream delivers: text as it is produced, then the result.
public enum LLMStreamEvent: Sendable, Equatable {
    /// A piece of text. Pieces of the answer concatenate to the final result's `text`;
    /// pieces with `isThinking` belong to the `<think>` block.
    case token(text: String, isThinking: Bool)
    /// The generation ended; always the last event of a stream that did not fail.
    case completed(LLMGenerationResult)
}
