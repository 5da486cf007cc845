#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Vectors for a batch of texts, with what it cost.
public struct EmbeddingResult: Sendable, Equatable, Codable {
    /// One vector per input text, in input order.
    public var vectors: [[Float]]
    /// The model that made them.
    public var modelId: String
    /// Length of every vector.
    public var dimension: Int
    /// Content tokens per text (before splitting or truncation).
    public var tokenCounts: [Int]
    /// Texts that were longer than one window (split or truncated, as the options said).
    public var overflowedTexts: Int
    /// Wall time of tokenizing and encoding, in milliseconds.
    public var durationMs: Double
    /// Where the vectors were made: this device or a remote server (``RoutingPolicy``).
    public var executedOn: ExecutionTarget = .local

    /// Content tokens encoded per second.
    public var tokensPerSecond: Double {
        durationMs > 0 ? Double(tokenCounts.reduce(0, +)) / (durationMs / 1000) : 0
    }

    /// Creates a result.
    public init(
        vectors: [[Float]],
        modelId: String,
        dimension: Int,
        tokenCounts: [Int],
        overflowedTexts: Int,
        durationMs: Double
    ) {
        self.vectors = vectors
        self.modelId = modelId
        self.dimension = dimension
        self.tokenCounts = tokenCounts
        self.overflowedTexts = overflowedTexts
        self.durationMs = durationMs
    }
}

/// The original SDK's name for ``EmbeddingResult``.
public typealias EmbeddingsResult = EmbeddingResult

extension EmbeddingResult {
    /// The original SDK's name for ``durationMs``, in seconds.
    public var processingTime: TimeInterval { durationMs / 1000 }
}
