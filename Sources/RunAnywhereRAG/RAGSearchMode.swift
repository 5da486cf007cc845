@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which signal ranks the chunks of a search.
public enum RAGSearchMode: String, Sendable, Equatable, Codable, CaseIterable {
    /// Reciprocal rank fusion of ``bm25`` and ``vector``.
    case hybrid
    /// Keyword relevance: BM25 over Porter-stemmed words, scored as SQLite FTS5 scores it.
    case bm25
    /// Cosine similarity of the query's embedding to the chunks'.
    case vector
}
