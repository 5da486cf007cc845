@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// BM25 over chunk texts from postings held in memory: the same scores as SQLite FTS5's
/// `bm25()` (same tokens, same formula, k1 = 1.2, b = 0.75; the tests hold it to FTS5), without
/// SQLite's cost of scoring every matching row through its auxiliary-function API, which made
/// hybrid search 10–100× slower than its vector half.
///
/// A query adds each term's postings into one score per chunk (term at a time), then keeps
/// the best `k` in a heap. Removed chunks stay as dead rows until they are a quarter of the
/// index, then the postings are compacted.
struct KeywordIndex: Sendable {
    static let k1 = 1.2
    static let b = 0.75

    private struct Posting: Sendable {
        var row: Int32
        var frequency: Int32
    }

    private var termIds: [String: Int32] = [:]
    private var postings: [[Posting]] = []
    /// Per row: chunk id, token count, and whether it is still in the index.
    private var ids: [Int64] = []
    private var lengths: [Int32] = []
    private var alive: [Bool] = []
    private var rows: [Int64: Int32] = [:]
    private var deadRows = 0
    private var totalTokens = 0

    /// Chunks in the index.
    var count: Int { ids.count - deadRows }

    /// An empty index.
    public init() {}

    /// Adds a chunk (replacing one with the same id).
    public mutating func add(_ id: Int64, text: String) {
        if rows[id] != nil { remove([id]) }
        let row = Int32(ids.count)
        var terms: [Int32] = []
        KeywordTokenizer.forEachTerm(in: text) { term in
            if let known = termIds[term] {
                terms.append(known)
            } else {
                let new = Int32(postings.count)
                termIds[term] = new
                postings.append([])
                terms.append(new)
            }
        }
        terms.sort()
        var start = 0
        while start < terms.count {
            var end = start + 1
            while end < terms.count, terms[end] == terms[start] { end += 1 }
            postings[Int(terms[start])].append(Posting(row: row, frequency: Int32(end - start)))
            start = end
        }
        ids.append(id)
        lengths.append(Int32(terms.count))
        alive.append(true)
        rows[id] = row
        totalTokens += terms.count
    }

    /// Removes chunks; ids not in the index are ignored.
    mutating func remove(_ removed: some Sequence<Int64>) {
        for id in removed {
            guard let row = rows.removeValue(forKey: id) else { continue }
            alive[Int(row)] = false
            deadRows += 1
            totalTokens -= Int(lengths[Int(row)])
        }
        if deadRows > 1_000 && deadRows * 4 > ids.count { compact() }
    }

    /// Drops dead rows from the postings and renumbers the live ones.
    private mutating func compact() {
        var newRow = [Int32](repeating: -1, count: ids.count)
        var next: Int32 = 0
        for row in ids.indices where alive[row] {
            newRow[row] = next
            next += 1
        }
        for term in postings.indices {
            postings[term] = postings[term].compactMap { posting in
                let row = newRow[Int(posting.row)]
                return row < 0 ? nil : Posting(row: row, frequency: posting.frequency)
            }
        }
        ids = ids.indices.filter { alive[$0] }.map { ids[$0] }
        lengths = lengths.indices.filter { alive[$0] }.map { lengths[$0] }
        alive = [Bool](repeating: true, count: ids.count)
        rows = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, Int32($0)) })
        deadRows = 0
    }

    /// The `k` best chunks for `terms` (stemmed, one BM25 phrase each, repeats counted as
    /// FTS5 counts them), best first, ties by insertion order; `allowed` filters chunk ids.
    func search(_ terms: [String], k: Int, allowed: Set<Int64>? = nil) -> [(id: Int64, score: Double)] {
        guard k > 0, count > 0 else { return [] }
        let rowCount = Double(count)
        let averageLength = Double(totalTokens) / rowCount
        var scores = [Double](repeating: 0, count: ids.count)
        var touched: [Int32] = []
        for term in terms {
            guard let termId = termIds[term] else { continue }
            let list = postings[Int(termId)]
            let hits = deadRows == 0 ? list.count : list.reduce(0) { $0 + (alive[Int($1.row)] ? 1 : 0) }
            guard hits > 0 else { continue }
            var idf = log((rowCount - Double(hits) + 0.5) / (Double(hits) + 0.5))
            if idf <= 0 { idf = 1e-6 }
            for posting in list {
                let row = Int(posting.row)
                guard alive[row] else { continue }
                let frequency = Double(posting.frequency)
                let length = Double(lengths[row])
                // FTS5's bm25() term, in its order of operations, so the sums are bit-equal.
                let score =
                    idf * (frequency * (Self.k1 + 1.0))
                    / (frequency + Self.k1 * (1 - Self.b + Self.b * length / averageLength))
                if scores[row] == 0 { touched.append(posting.row) }
                scores[row] += score
            }
        }
        var best = TopK<Double>(k)
        for row in touched {
            if let allowed, !allowed.contains(ids[Int(row)]) { continue }
            best.offer(Int(row), scores[Int(row)])
        }
        return best.sorted().map { (ids[$0.item], $0.score) }
    }

    // MARK: Queries

    /// The words of a query that keyword search looks for: folded, each once, without
    /// function words (unless the query has nothing else).
    static func queryWords(_ query: String) -> [String] {
        var seen: Set<String> = []
        var words: [String] = []
        KeywordTokenizer.forEachWord(in: query) { word in
            let text = String(decoding: word, as: UTF8.self)
            if seen.insert(text).inserted { words.append(text) }
        }
        // Words in nearly every chunk add almost nothing to BM25 but cost a pass over most
        // postings; a query of only such words keeps them.
        let content = words.filter { !stopwords.contains($0) }
        return content.isEmpty ? words : content
    }

    /// The stemmed terms of `queryWords(query)`.
    static func queryTerms(_ query: String) -> [String] {
        queryWords(query).map { word in
            var bytes = Array(word.utf8)
            PorterStemmer.stem(&bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    static let stopwords: Set<String> = [
        "a", "about", "an", "and", "are", "as", "at", "be", "but", "by", "can", "do", "does", "for", "from", "had",
        "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "no", "not", "of", "on", "or",
        "our", "s", "so", "that", "the", "their", "them", "then", "there", "these", "they", "this", "to", "was", "we",
        "were", "what", "when", "where", "which", "who", "why", "will", "with", "you", "your",
    ]
}
