#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Opens the database of one RAG index at a file: with settings, creating it; with a size in
/// bytes, never growing it past that size.
@_spi(Backend) public typealias RAGStoreFactory =
    @Sendable (_ url: URL, _ create: RAGStoreSettings?, _ maxBytes: Int64?) throws(SDKException) -> any RAGStore

/// The database of one RAG index: documents, chunks with their vectors, the keyword postings
/// and the settings, in one file.
///
/// The SDK keeps the index's logic (chunking, embedding, search, fusion); a store only keeps
/// the rows. The one that ships is `RunAnywhereSQLite`'s, registered by its `SQLiteStorageModule`:
/// SQLite through GRDB, one transaction per write, WAL with a busy timeout so a second
/// writing process waits. A store is registered with
/// ``ServiceRegistry/registerRAGStore(name:factory:)``.
@_spi(Backend) public protocol RAGStore: AnyObject, Sendable {
    /// The database file.
    var url: URL { get }

    /// The settings stored in the database.
    ///
    /// - Throws: `.indexCorrupted` when the file is no index of this schema.
    func settings() async throws(SDKException) -> RAGStoreSettings

    /// Replaces (or adds) one document with its chunks, in one transaction.
    ///
    /// - Returns: the generation after the write, the new chunks' ids in order, the ids of
    ///   the chunks it replaced, and whether a document was replaced.
    func replaceDocument(
        id: String,
        title: String?,
        metadata: [String: String],
        bytes: Int,
        chunks: [RAGStoreChunk]
    ) async throws(SDKException) -> (generation: Int64, added: [Int64], removed: [Int64], replaced: Bool)

    /// Deletes a document and its chunks; `nil` when there was none.
    func deleteDocument(id: String) async throws(SDKException) -> (generation: Int64, removed: [Int64])?

    /// Stores the serialized approximate vector index built at `generation`.
    func saveVectorIndex(_ data: Data, generation: Int64) async throws(SDKException)

    /// Writes so far; every write adds one, and another process's write shows here.
    func generation() async throws(SDKException) -> Int64

    /// Every chunk's id and vector, in id order, with the generation they belong to.
    ///
    /// - Throws: `.indexCorrupted` for a vector that is not `dimension` floats.
    func allVectors(dimension: Int) async throws(SDKException) -> (generation: Int64, ids: [Int64], data: [Float])

    /// Keyword postings of every chunk's text, with the generation they belong to.
    func keywordIndex() async throws(SDKException) -> (generation: Int64, index: KeywordIndex)

    /// The stored approximate vector index, if any, with the generation it was built at.
    func loadVectorIndex() async throws(SDKException) -> (generation: Int64, data: Data)?

    /// Ids of the documents whose metadata has every pair of `filter`.
    func documents(matching filter: [String: String]) async throws(SDKException) -> Set<String>

    /// The ids of every chunk of these documents.
    func chunkIds(inDocuments documents: Set<String>) async throws(SDKException) -> Set<Int64>

    /// The chunks with these ids, with their documents' titles and metadata.
    func chunks(_ ids: [Int64]) async throws(SDKException) -> [Int64: RAGStoredChunk]

    /// Documents, chunks and tokens.
    func counts() async throws(SDKException) -> (documents: Int, chunks: Int, tokens: Int)

    /// The ids of every document, sorted.
    func documentIds() async throws(SDKException) -> [String]

    /// The database's own consistency check; the problems found (keyword postings live in
    /// memory and are rebuilt from the chunks at every open).
    func checkIntegrity() async throws(SDKException) -> [String]

    /// Closes the database; the store is unusable afterwards.
    func close()
}

/// The settings a RAG index is created with, kept in its database and beside it (`index.json`).
@_spi(Backend) public struct RAGStoreSettings: Sendable, Equatable, Codable {
    /// The index's name.
    public var name: String
    /// The id of the embedding model its vectors come from.
    public var embeddingModel: String
    /// The length of its vectors.
    public var dimension: Int
    /// How its documents are cut into chunks.
    public var chunking: RAGChunkingOptions

    /// Settings with these values.
    public init(name: String, embeddingModel: String, dimension: Int, chunking: RAGChunkingOptions) {
        self.name = name
        self.embeddingModel = embeddingModel
        self.dimension = dimension
        self.chunking = chunking
    }
}

/// A chunk ready to store: its place in the document, its token count, text and vector.
@_spi(Backend) public struct RAGStoreChunk: Sendable {
    /// Its first character's offset in the document.
    public var start: Int
    /// The offset after its last character.
    public var end: Int
    /// Its tokens, by the embedding model's tokenizer.
    public var tokens: Int
    /// Its text.
    public var text: String
    /// Its embedding.
    public var vector: [Float]

    /// A chunk with these values.
    public init(start: Int, end: Int, tokens: Int, text: String, vector: [Float]) {
        self.start = start
        self.end = end
        self.tokens = tokens
        self.text = text
        self.vector = vector
    }
}

/// A stored chunk with what search results need.
@_spi(Backend) public struct RAGStoredChunk: Sendable {
    /// Its id in the store.
    public var id: Int64
    /// Its document's id.
    public var documentId: String
    /// Its place among the document's chunks, from 0.
    public var ordinal: Int
    /// Its first character's offset in the document.
    public var start: Int
    /// The offset after its last character.
    public var end: Int
    /// Its text.
    public var text: String
    /// Its document's title.
    public var title: String?
    /// Its document's metadata.
    public var metadata: [String: String]

    /// A chunk with these values.
    public init(
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
