@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every chunk's vector in one contiguous Float32 buffer, searched by brute force.
///
/// Exact search reads each vector once per query with SIMD dot products; up to tens of
/// thousands of chunks that is a few milliseconds, and it is the ground truth the
/// approximate index is measured against.
struct ExactVectorIndex: Sendable {
    let dimension: Int
    /// Chunk ids, row by row.
    private(set) var ids: [Int64] = []
    /// Row-major vectors, `ids.count × dimension`.
    private(set) var data: [Float] = []
    /// Row of each chunk id.
    private(set) var rows: [Int64: Int] = [:]

    init(dimension: Int) {
        self.dimension = dimension
    }

    init(dimension: Int, ids: [Int64], data: [Float]) {
        self.dimension = dimension
        self.ids = ids
        self.data = data
        rows = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
    }

    var count: Int { ids.count }

    mutating func add(_ id: Int64, _ vector: [Float]) {
        rows[id] = ids.count
        ids.append(id)
        data.append(contentsOf: vector)
    }

    /// Removes chunks by moving the last rows into their places.
    mutating func remove(_ removed: some Sequence<Int64>) {
        for id in removed {
            guard let row = rows.removeValue(forKey: id) else { continue }
            let last = ids.count - 1
            if row != last {
                ids[row] = ids[last]
                rows[ids[row]] = row
                let from = last * dimension
                let to = row * dimension
                for i in 0..<dimension { data[to + i] = data[from + i] }
            }
            ids.removeLast()
            data.removeLast(dimension)
        }
    }

    /// The vector of row `row`.
    func vector(atRow row: Int) -> [Float] {
        Array(data[(row * dimension)..<((row + 1) * dimension)])
    }

    /// The `k` chunks with the highest dot product with `query` (the cosine, for
    /// normalized vectors), best first; `allowed` filters chunk ids.
    func search(_ query: [Float], k: Int, allowed: Set<Int64>? = nil) -> [(id: Int64, score: Float)] {
        guard k > 0, query.count == dimension, !ids.isEmpty else { return [] }
        var best = TopK<Float>(k)
        data.withUnsafeBufferPointer { all in
            query.withUnsafeBufferPointer { q in
                for row in 0..<ids.count {
                    if let allowed, !allowed.contains(ids[row]) { continue }
                    let vector = UnsafeBufferPointer(rebasing: all[(row * dimension)..<((row + 1) * dimension)])
                    best.offer(row, VectorMath.dot(q, vector))
                }
            }
        }
        return best.sorted().map { (ids[$0.item], $0.score) }
    }
}

/// The `k` highest-scoring items seen, kept in a min-heap.
struct TopK<Score: Comparable & Sendable>: Sendable {
    let k: Int
    private(set) var heap: [(item: Int, score: Score)] = []

    init(_ k: Int) {
        self.k = k
        heap.reserveCapacity(k)
    }

    /// The lowest score kept, once `k` items are in.
    var threshold: Score? { heap.count == k ? heap[0].score : nil }

    mutating func offer(_ item: Int, _ score: Score) {
        if heap.count < k {
            heap.append((item, score))
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard heap[child].score < heap[parent].score else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        } else if score > heap[0].score {
            heap[0] = (item, score)
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count, heap[left].score < heap[smallest].score { smallest = left }
                if right < heap.count, heap[right].score < heap[smallest].score { smallest = right }
                guard smallest != parent else { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
    }

    /// Best first; ties by item, so results are stable.
    func sorted() -> [(item: Int, score: Score)] {
        heap.sorted { $0.score != $1.score ? $0.score > $1.score : $0.item < $1.item }
    }
}
