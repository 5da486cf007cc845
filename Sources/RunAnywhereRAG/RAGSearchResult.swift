@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One chunk a search found.
public struct RAGSearchResult: Sendable, Equatable, Codable {
    /// The document the chunk belongs to.
    public var documentId: String
    /// The chunk's id, unique in the index.
    public var chunkId: Int64
    /// The chunk's position in its document, from 0.
    public var ordinal: Int
    /// Higher is better. Cosine similarity for `.vector`, BM25 (sign flipped, so higher is
    /// better) for `.bm25`, the fused reciprocal-rank score for `.hybrid`.
    public var score: Double
    /// The chunk's text.
    public var text: String
    /// Where the chunk starts in its document, in UTF-8 bytes.
    public var startOffset: Int
    /// Where the chunk ends in its document (exclusive), in UTF-8 bytes.
    public var endOffset: Int
    /// The document's title, if it has one.
    public var title: String?
    /// The document's metadata.
    public var metadata: [String: String]

    /// Creates a result.
    public init(
        documentId: String,
        chunkId: Int64,
        ordinal: Int,
        score: Double,
        text: String,
        startOffset: Int,
        endOffset: Int,
        title: String? = nil,
        metadata: [String: String] = [:]
    ) {
        self.documentId = documentId
        self.chunkId = chunkId
        self.ordinal = ordinal
        self.score = score
        self.text = text
        self.startOffset = startOffset
        self.endOffset = endOffset
        self.title = title
        self.metadata = metadata
    }
}
