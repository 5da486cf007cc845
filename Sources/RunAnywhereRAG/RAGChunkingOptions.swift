@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How documents are cut into chunks before they are embedded.
///
/// Chunks are measured in tokens of the index's embedding model and end at sentence or
/// paragraph boundaries; a sentence longer than a chunk is cut between words. Consecutive
/// chunks share up to ``overlapTokens`` tokens of whole sentences, so a passage that
/// straddles a boundary is still found whole in one of them.
public struct RAGChunkingOptions: Sendable, Equatable, Codable {
    /// Most content tokens in one chunk.
    public var chunkTokens: Int
    /// Tokens of whole sentences repeated from the end of one chunk at the start of the next.
    public var overlapTokens: Int

    /// Creates options. The defaults suit all-MiniLM-L6-v2, which was trained on passages of
    /// up to 128 word pieces.
    public init(chunkTokens: Int = 128, overlapTokens: Int = 24) {
        self.chunkTokens = chunkTokens
        self.overlapTokens = overlapTokens
    }

    /// `.invalidInput` unless 8 ≤ chunkTokens and 0 ≤ overlapTokens < chunkTokens / 2.
    func validate() throws(SDKException) {
        guard chunkTokens >= 8, chunkTokens <= 8192 else {
            throw SDKException(.invalidInput, "chunkTokens must be between 8 and 8192, not \(chunkTokens)")
        }
        guard overlapTokens >= 0, overlapTokens * 2 < chunkTokens else {
            throw SDKException(
                .invalidInput,
                "overlapTokens must be at least 0 and less than half of chunkTokens (\(chunkTokens)), not \(overlapTokens)"
            )
        }
    }
}
