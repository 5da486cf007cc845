#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How texts become vectors.
public struct EmbeddingOptions: Sendable, Equatable, Codable {
    /// Scale every vector to length 1, so a dot product is the cosine similarity. On by default.
    public var normalize: Bool
    /// What to do with a text longer than the model's window.
    public var overflow: Overflow

    /// What happens to a text longer than the model's window.
    public enum Overflow: String, Sendable, Equatable, Codable, CaseIterable {
        /// Split into windows, embed each, and average them weighted by their token counts.
        case split
        /// Keep the first window only.
        case truncate
    }

    /// Creates options.
    public init(normalize: Bool = true, overflow: Overflow = .split) {
        self.normalize = normalize
        self.overflow = overflow
    }
}
