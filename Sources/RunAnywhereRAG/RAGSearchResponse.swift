@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Search results with what the search cost.
public struct RAGSearchResponse: Sendable, Equatable {
    /// The chunks found, best first.
    public var results: [RAGSearchResult]
    /// Time spent embedding the query, in milliseconds (0 for `.bm25`).
    public var queryEmbeddingMs: Double
    /// Time spent searching the index, in milliseconds: keyword and vector search, fusion
    /// and reading the chunks.
    public var searchMs: Double
    /// Time spent reranking, in milliseconds (0 without a reranker).
    public var rerankMs: Double

    /// Creates a response.
    public init(results: [RAGSearchResult], queryEmbeddingMs: Double, searchMs: Double, rerankMs: Double = 0) {
        self.results = results
        self.queryEmbeddingMs = queryEmbeddingMs
        self.searchMs = searchMs
        self.rerankMs = rerankMs
    }
}
