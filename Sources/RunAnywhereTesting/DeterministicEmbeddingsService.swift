import Foundation
@_spi(Backend) import RunAnywhere
import Synchronization

/// Bag-of-words embeddings: a text's vector is the mean of one fixed pseudo-random unit
/// vector per lower-cased word, so texts that share words are close and texts that share
/// none are nearly orthogonal. The same text gives the same vector on every machine.
///
/// As a reranker (`test-reranker`), a passage's score is the share of the query's distinct
/// words it contains.
struct DeterministicEmbeddingsService: EmbeddingsService {
    let model: ModelInfo
    let isReranker: Bool
    let maxTokensPerWindow = DeterministicEmbeddingsService.defaultWindow

    var dimension: Int { isReranker ? 1 : Self.defaultDimension }
    var pairSeparator: [Int32] { isReranker ? [Self.separator] : [] }

    /// Joins a query and a passage; word ids are never negative.
    static let separator: Int32 = -1

    /// Length of the vectors.
    static let defaultDimension = 256
    /// Words per window; small, so tests reach the splitting of long texts cheaply.
    static let defaultWindow = 128

    func tokenize(_ text: String) async throws -> [Int32] {
        Self.words(in: text).map(Self.tokenId)
    }

    func embed(windows: [[Int32]]) async throws -> [[Float]] {
        if isReranker {
            return windows.map { window in
                let split = window.firstIndex(of: Self.separator) ?? window.endIndex
                let query = Set(window[..<split])
                let passage = Set(window[split...])
                return [Float(query.intersection(passage).count) / Float(max(query.count, 1))]
            }
        }
        let dimension = self.dimension
        return windows.map { window in
            var sum = [Float](repeating: 0, count: dimension)
            // Raw buffers: this loop runs once per word of every window, in debug builds too.
            sum.withUnsafeMutableBufferPointer { total in
                for token in window {
                    Self.cachedVector(for: token, dimension: dimension).withUnsafeBufferPointer { vector in
                        for i in 0..<dimension { total[i] += vector[i] }
                    }
                }
                let scale = 1 / Float(max(window.count, 1))
                for i in 0..<dimension { total[i] *= scale }
            }
            return sum
        }
    }

    /// Word vectors drawn so far; a document repeats its words, so big ones stay fast.
    private static let cache = Mutex<[Int32: [Float]]>([:])

    private static func cachedVector(for token: Int32, dimension: Int) -> [Float] {
        if let known = cache.withLock({ $0[token] }), known.count == dimension { return known }
        let vector = vector(for: token, dimension: dimension)
        cache.withLock { cache in
            if cache.count > 200_000 { cache.removeAll() }
            cache[token] = vector
        }
        return vector
    }

    func unload() async {}

    /// Runs of letters and digits, lower-cased.
    static func words(in text: String) -> [String] {
        AlphanumericWords.split(text.lowercased())
    }

    /// FNV-1a of the word's UTF-8, folded to a non-negative `Int32`.
    static func tokenId(_ word: String) -> Int32 {
        var hash: UInt32 = 2_166_136_261
        for byte in word.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return Int32(bitPattern: hash & 0x7fff_ffff)
    }

    /// A unit vector drawn from SplitMix64 seeded by the token id.
    static func vector(for token: Int32, dimension: Int) -> [Float] {
        var random = SplitMix(seed: UInt64(UInt32(bitPattern: token)) &+ 0x9E37_79B9_7F4A_7C15)
        let raw = (0..<dimension).map { _ in Float(random.nextUnit()) * 2 - 1 }
        let norm = raw.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return raw.map { $0 / norm }
    }
}
