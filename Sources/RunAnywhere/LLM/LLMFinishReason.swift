#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
