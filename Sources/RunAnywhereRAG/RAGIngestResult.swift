@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ingesting one document did.
public struct RAGIngestResult: Sendable, Equatable, Codable {
    /// The document's id.
    public var documentId: String
    /// Chunks it became.
    public var chunks: Int
    /// Content tokens over its chunks.
    public var tokens: Int
    /// Whether it replaced a document of the same id.
    public var replaced: Bool
    /// Time spent embedding, in milliseconds.
    public var embeddingMs: Double
    /// Time spent chunking and writing the store, in milliseconds.
    public var storeMs: Double

    /// Creates a result.
    public init(documentId: String, chunks: Int, tokens: Int, replaced: Bool, embeddingMs: Double, storeMs: Double) {
        self.documentId = documentId
        self.chunks = chunks
        self.tokens = tokens
        self.replaced = replaced
        self.embeddingMs = embeddingMs
        self.storeMs = storeMs
    }
}
