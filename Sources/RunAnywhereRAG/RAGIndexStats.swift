@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a RAG index holds.
public struct RAGIndexStats: Sendable, Equatable, Codable {
    /// The index's name.
    public var name: String
    /// The embedding model its vectors come from.
    public var embeddingModel: String
    /// Length of its vectors.
    public var dimension: Int
    /// How its documents were chunked.
    public var chunking: RAGChunkingOptions
    /// Documents in the index.
    public var documents: Int
    /// Chunks in the index.
    public var chunks: Int
    /// Content tokens over all chunks.
    public var tokens: Int
    /// Size of the database on disk, in bytes.
    public var databaseBytes: Int64
    /// How vector search runs now: `exact` or `hnsw`.
    public var vectorSearch: String
    /// When the database was last written (its file's modification time); `nil` when unknown.
    public var lastUpdated: Date?

    /// Creates statistics.
    public init(
        name: String,
        embeddingModel: String,
        dimension: Int,
        chunking: RAGChunkingOptions,
        documents: Int,
        chunks: Int,
        tokens: Int,
        databaseBytes: Int64,
        vectorSearch: String,
        lastUpdated: Date? = nil
    ) {
        self.name = name
        self.embeddingModel = embeddingModel
        self.dimension = dimension
        self.chunking = chunking
        self.documents = documents
        self.chunks = chunks
        self.tokens = tokens
        self.databaseBytes = databaseBytes
        self.vectorSearch = vectorSearch
        self.lastUpdated = lastUpdated
    }
}

/// The original SDK's name for a RAG index's statistics: ``RAGIndexStats``.
public typealias RAGStatistics = RAGIndexStats
