#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which signal ranks the chunks of a search.
public enum RAGSearchMode: String, Sendable, Equatable, Codable, CaseIterable {
    /// Reciprocal rank fusion of ``bm25`` and ``vector``.
    case hybrid
    /// Keyword relevance (SQLite FTS5's BM25, Porter-stemmed words).
    case bm25
    /// Cosine similarity of the query's embedding to the chunks'.
    case vector
}
