#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the loaded embedding model produces and accepts.
public struct EmbeddingModelInfo: Sendable, Equatable, Codable {
    /// The model's id.
    public var modelId: String
    /// Length of every vector.
    public var dimension: Int
    /// Content tokens one window holds; longer texts are split or truncated.
    public var maxTokens: Int

    /// Creates a description.
    public init(modelId: String, dimension: Int, maxTokens: Int) {
        self.modelId = modelId
        self.dimension = dimension
        self.maxTokens = maxTokens
    }
}
