@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The settings a RAG index is created with, kept in its database and beside it (`index.json`).
struct RAGStoreSettings: Sendable, Equatable, Codable {
    /// The index's name.
    var name: String
    /// The id of the embedding model its vectors come from.
    var embeddingModel: String
    /// The length of its vectors.
    var dimension: Int
    /// How its documents are cut into chunks.
    var chunking: RAGChunkingOptions

    /// Settings with these values.
    init(name: String, embeddingModel: String, dimension: Int, chunking: RAGChunkingOptions) {
        self.name = name
        self.embeddingModel = embeddingModel
        self.dimension = dimension
        self.chunking = chunking
    }
}

/// A chunk ready to store: its place in the document, its token count, text and vector.
struct RAGStoreChunk: Sendable {
    /// Its first character's offset in the document.
    var start: Int
    /// The offset after its last character.
    var end: Int
    /// Its tokens, by the embedding model's tokenizer.
    var tokens: Int
    /// Its text.
    var text: String
    /// Its embedding.
    var vector: [Float]

    /// A chunk with these values.
    init(start: Int, end: Int, tokens: Int, text: String, vector: [Float]) {
        self.start = start
        self.end = end
        self.tokens = tokens
        self.text = text
        self.vector = vector
    }
}

/// A stored chunk with what search results need.
struct RAGStoredChunk: Sendable {
    /// Its id in the store.
    var id: Int64
    /// Its document's id.
    var documentId: String
    /// Its place among the document's chunks, from 0.
    var ordinal: Int
    /// Its first character's offset in the document.
    var start: Int
    /// The offset after its last character.
    var end: Int
    /// Its text.
    var text: String
    /// Its document's title.
    var title: String?
    /// Its document's metadata.
    var metadata: [String: String]

    /// A chunk with these values.
    init(
        id: Int64,
        documentId: String,
        ordinal: Int,
        start: Int,
        end: Int,
        text: String,
        title: String?,
        metadata: [String: String]
    ) {
        self.id = id
        self.documentId = documentId
        self.ordinal = ordinal
        self.start = start
        self.end = end
        self.text = text
        self.title = title
        self.metadata = metadata
    }
}
