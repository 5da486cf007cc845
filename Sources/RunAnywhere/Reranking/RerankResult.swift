#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Relevance scores of documents for one query, from a reranking model.
public struct RerankResult: Sendable, Equatable, Codable {
    /// One score per document, in the documents' order; higher is more relevant. The scale
    /// is the model's own (often a logit).
    public var scores: [Double]
    /// The model that scored them.
    public var modelId: String
    /// Documents cut to fit the model's window beside the query.
    public var truncatedDocuments: Int
    /// Wall time of tokenizing and scoring, in milliseconds.
    public var durationMs: Double

    /// Document indices, most relevant first (ties keep the documents' order).
    public var ranking: [Int] {
        scores.indices.sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
    }

    /// Creates a result.
    public init(scores: [Double], modelId: String, truncatedDocuments: Int, durationMs: Double) {
        self.scores = scores
        self.modelId = modelId
        self.truncatedDocuments = truncatedDocuments
        self.durationMs = durationMs
    }
}
