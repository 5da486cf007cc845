@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a search ranks and filters.
public struct RAGSearchOptions: Sendable, Equatable, Codable {
    /// How many chunks to return.
    public var topK: Int
    /// Which signal ranks them.
    public var mode: RAGSearchMode
    /// Only documents whose metadata has every one of these key/value pairs.
    public var filter: [String: String]
    /// The `k` of reciprocal rank fusion: a chunk at rank r in one list scores 1 / (k + r).
    /// Larger values flatten the difference between top ranks. 60 is the usual choice.
    public var fusionK: Double
    /// How many candidates each list contributes to fusion (at least `topK`).
    public var fusionCandidates: Int
    /// A second stage over the best candidates, or none.
    public var reranker: RAGReranker?

    /// Creates options.
    public init(
        topK: Int = 5,
        mode: RAGSearchMode = .hybrid,
        filter: [String: String] = [:],
        fusionK: Double = 60,
        fusionCandidates: Int = 50,
        reranker: RAGReranker? = nil
    ) {
        self.topK = topK
        self.mode = mode
        self.filter = filter
        self.fusionK = fusionK
        self.fusionCandidates = fusionCandidates
        self.reranker = reranker
    }

    func validate() throws(SDKException) {
        guard topK >= 1, topK <= 10_000 else {
            throw SDKException(.invalidInput, "topK must be between 1 and 10000, not \(topK)")
        }
        if let reranker, reranker.candidates < 1 || reranker.candidates > 1000 {
            throw SDKException(.invalidInput, "A reranker reads 1…1000 candidates, not \(reranker.candidates)")
        }
        guard fusionK >= 0, fusionK.isFinite else {
            throw SDKException(.invalidInput, "fusionK must be a finite number ≥ 0, not \(fusionK)")
        }
    }
}
