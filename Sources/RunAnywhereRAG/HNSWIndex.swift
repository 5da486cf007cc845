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

/// An approximate nearest-neighbour index (HNSW: a hierarchy of proximity graphs) over
/// normalized vectors, ranking by dot product.
///
/// Layer 0 links every node to at most `m0` neighbours, kept in one flat array so 100K
/// nodes cost a few megabytes and serialize as one blob; the few nodes on higher layers
/// keep theirs in a dictionary. Neighbours are chosen with the paper's heuristic (a
/// candidate is linked only if it is closer to the node than to the neighbours already
/// chosen), which keeps the graph navigable on clustered text embeddings. Removed chunks
/// stay in the graph as waypoints and are never returned.
///
/// The graph is a cache: the vectors live in the database, and a graph that is stale or
/// missing is repaired or rebuilt from them.
struct HNSWIndex: Sendable {
    let dimension: Int
    let m: Int
    let m0: Int
    let efConstruction: Int
    /// Chunk id of each node.
    private(set) var ids: [Int64] = []
    /// Row-major vectors of the nodes.
    private(set) var data: [Float] = []
    private var levels: [UInt8] = []
    /// Layer-0 neighbours: `m0` slots per node, `counts0[node]` of them used.
    private var neighbors0: [Int32] = []
    private var counts0: [UInt8] = []
    /// Neighbours on layers ≥ 1: node → one list per layer, from layer 1.
    private var upper: [Int32: [[Int32]]] = [:]
    private var entry: Int32 = -1
    private var maxLevel = 0
    private(set) var deleted: Set<Int32> = []
    /// Node of each live chunk id.
    private(set) var nodes: [Int64: Int32] = [:]
    private var random = SplitMix(seed: 0x5EED)

    init(dimension: Int, m: Int = 16, efConstruction: Int = 96) {
        self.dimension = dimension
        self.m = m
        self.m0 = 2 * m
        self.efConstruction = efConstruction
    }

    /// Live (not removed) nodes.
    var count: Int { nodes.count }
    /// Nodes including removed ones.
    var nodeCount: Int { ids.count }

    // MARK: Building

    mutating func add(_ id: Int64, _ vector: [Float]) {
        if let old = nodes[id] { deleted.insert(old) }
        let node = Int32(ids.count)
        let level = min(15, Int(-log(max(random.nextUnit(), 1e-12)) / log(Double(m))))
        ids.append(id)
        data.append(contentsOf: vector)
        levels.append(UInt8(level))
        neighbors0.append(contentsOf: repeatElement(-1, count: m0))
        counts0.append(0)
        if level > 0 { upper[node] = Array(repeating: [], count: level) }
        nodes[id] = node
        guard entry >= 0 else {
            entry = node
            maxLevel = level
            return
        }
        // A reference to the vectors as they are now; linking below changes only the lists.
        let vectors = data
        vectors.withUnsafeBufferPointer { all in link(node, vector, level: level, all: all) }
        if level > maxLevel {
            maxLevel = level
            entry = node
        }
    }

    private mutating func link(_ node: Int32, _ vector: [Float], level: Int, all: UnsafeBufferPointer<Float>) {
        var point = entry
        var layer = maxLevel
        while layer > level {
            point = greedy(vector, from: point, layer: layer, all: all)
            layer -= 1
        }
        var entries = [point]
        for layer in stride(from: min(level, maxLevel), through: 0, by: -1) {
            let found = searchLayer(vector, entries: entries, ef: efConstruction, layer: layer, all: all)
            let limit = layer == 0 ? m0 : m
            let chosen = selectNeighbors(found, limit: m, all: all)
            setNeighbors(of: node, layer: layer, chosen.map(\.node))
            for neighbor in chosen {
                var list = neighborList(of: neighbor.node, layer: layer)
                if list.count < limit {
                    list.append(node)
                } else {
                    // Full: re-choose among the old neighbours and the new node.
                    let base = row(neighbor.node, all)
                    var candidates = list.map { (node: $0, score: VectorMath.dot(base, row($0, all))) }
                    candidates.append((node, VectorMath.dot(base, row(node, all))))
                    candidates.sort { $0.score > $1.score }
                    list = selectNeighbors(candidates, limit: limit, all: all).map(\.node)
                }
                setNeighbors(of: neighbor.node, layer: layer, list)
            }
            entries = found.map(\.node)
        }
    }

    mutating func remove(_ id: Int64) {
        guard let node = nodes.removeValue(forKey: id) else { return }
        deleted.insert(node)
    }

    // MARK: Search

    /// The `k` live nodes with the highest dot product found with a beam of `ef`.
    func search(_ query: [Float], k: Int, ef: Int) -> [(id: Int64, score: Float)] {
        guard entry >= 0, k > 0, query.count == dimension else { return [] }
        let found = data.withUnsafeBufferPointer { all in
            var point = entry
            var layer = maxLevel
            while layer > 0 {
                point = greedy(query, from: point, layer: layer, all: all)
                layer -= 1
            }
            return searchLayer(query, entries: [point], ef: max(ef, k), layer: 0, all: all)
        }
        var results: [(id: Int64, score: Float)] = []
        for candidate in found where !deleted.contains(candidate.node) {
            results.append((ids[Int(candidate.node)], candidate.score))
            if results.count == k { break }
        }
        return results
    }

    /// Exact search over the live nodes (for filters, and to measure recall).
    func exactSearch(_ query: [Float], k: Int, allowed: Set<Int64>? = nil) -> [(id: Int64, score: Float)] {
        var best = TopK<Float>(k)
        data.withUnsafeBufferPointer { all in
            query.withUnsafeBufferPointer { q in
                for (id, node) in nodes {
                    if let allowed, !allowed.contains(id) { continue }
                    best.offer(Int(node), VectorMath.dot(q, row(node, all)))
                }
            }
        }
        return best.sorted().map { (ids[$0.item], $0.score) }
    }

    private func greedy(_ query: [Float], from start: Int32, layer: Int, all: UnsafeBufferPointer<Float>) -> Int32 {
        query.withUnsafeBufferPointer { q in
            var current = start
            var best = VectorMath.dot(q, row(start, all))
            var improved = true
            while improved {
                improved = false
                for neighbor in neighborList(of: current, layer: layer) {
                    let score = VectorMath.dot(q, row(neighbor, all))
                    if score > best {
                        best = score
                        current = neighbor
                        improved = true
                    }
                }
            }
            return current
        }
    }

    /// Best-first beam search on one layer; the `ef` best nodes found, best first.
    private func searchLayer(
        _ query: [Float],
        entries: [Int32],
        ef: Int,
        layer: Int,
        all: UnsafeBufferPointer<Float>
    ) -> [(node: Int32, score: Float)] {
        query.withUnsafeBufferPointer { q in
            var visited = Set<Int32>(minimumCapacity: ef * 8)
            var candidates = CandidateHeap(higherFirst: true)
            var results = CandidateHeap(higherFirst: false)
            for node in entries where visited.insert(node).inserted {
                let candidate = Candidate(node: node, score: VectorMath.dot(q, row(node, all)))
                candidates.push(candidate)
                results.push(candidate)
                if results.count > ef { _ = results.pop() }
            }
            while let closest = candidates.pop() {
                if let worst = results.top, results.count >= ef, closest.score < worst.score { break }
                for neighbor in neighborList(of: closest.node, layer: layer) where visited.insert(neighbor).inserted {
                    let score = VectorMath.dot(q, row(neighbor, all))
                    if results.count < ef || score > results.top!.score {
                        candidates.push(Candidate(node: neighbor, score: score))
                        results.push(Candidate(node: neighbor, score: score))
                        if results.count > ef { _ = results.pop() }
                    }
                }
            }
            return results.elements.sorted { $0.score > $1.score }.map { ($0.node, $0.score) }
        }
    }

    /// The HNSW heuristic: take candidates best first, skipping one that is closer to an
    /// already chosen neighbour than to the base; top up with skipped ones if short.
    private func selectNeighbors(
        _ candidates: [(node: Int32, score: Float)],
        limit: Int,
        all: UnsafeBufferPointer<Float>
    ) -> [(node: Int32, score: Float)] {
        var chosen: [(node: Int32, score: Float)] = []
        var skipped: [(node: Int32, score: Float)] = []
        for candidate in candidates {
            guard chosen.count < limit else { break }
            let vector = row(candidate.node, all)
            if chosen.allSatisfy({ VectorMath.dot(vector, row($0.node, all)) < candidate.score }) {
                chosen.append(candidate)
            } else {
                skipped.append(candidate)
            }
        }
        for candidate in skipped where chosen.count < limit { chosen.append(candidate) }
        return chosen
    }

    // MARK: Storage

    /// One node's vector inside the buffer of all vectors.
    private func row(_ node: Int32, _ all: UnsafeBufferPointer<Float>) -> UnsafeBufferPointer<Float> {
        UnsafeBufferPointer(rebasing: all[(Int(node) * dimension)..<((Int(node) + 1) * dimension)])
    }

    private func neighborList(of node: Int32, layer: Int) -> [Int32] {
        if layer == 0 {
            let start = Int(node) * m0
            return Array(neighbors0[start..<(start + Int(counts0[Int(node)]))])
        }
        guard let lists = upper[node], layer - 1 < lists.count else { return [] }
        return lists[layer - 1]
    }

    private mutating func setNeighbors(of node: Int32, layer: Int, _ list: [Int32]) {
        if layer == 0 {
            let start = Int(node) * m0
            for (offset, neighbor) in list.prefix(m0).enumerated() { neighbors0[start + offset] = neighbor }
            counts0[Int(node)] = UInt8(min(list.count, m0))
        } else {
            upper[node]?[layer - 1] = list
        }
    }

    // MARK: Serialization

    private static let magic: UInt32 = 0x484E_5357  // "HNSW"

    /// The graph without its vectors (they are in the database), for ``deserialize(_:vectors:)``.
    func serialized() -> Data {
        var out = Data()
        func put<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
        }
        put(Self.magic)
        put(UInt32(1))
        put(UInt32(dimension))
        put(UInt32(m))
        put(UInt32(efConstruction))
        put(UInt32(ids.count))
        put(entry)
        put(UInt32(maxLevel))
        for id in ids { put(id) }
        out.append(contentsOf: levels)
        out.append(contentsOf: counts0)
        for neighbor in neighbors0 { put(neighbor) }
        put(UInt32(deleted.count))
        for node in deleted.sorted() { put(node) }
        for node in upper.keys.sorted() {
            for list in upper[node]! {
                put(UInt32(list.count))
                for neighbor in list { put(neighbor) }
            }
        }
        return out
    }

    /// A graph from ``serialized()``, given each chunk id's vector; nil when the data is not
    /// a graph of this dimension, or has far more nodes than there are vectors (then it is
    /// rebuilt from the vectors).
    static func deserialize(_ blob: Data, vectors: [Int64: ArraySlice<Float>], dimension: Int) -> HNSWIndex? {
        var reader = ByteReader(blob)
        guard reader.read(UInt32.self) == magic, reader.read(UInt32.self) == 1,
            let dim = reader.read(UInt32.self), Int(dim) == dimension,
            let m = reader.read(UInt32.self), m >= 2, m <= 64,
            let ef = reader.read(UInt32.self),
            let count = reader.read(UInt32.self).map(Int.init),
            // Each node without a vector takes a zero vector (4 bytes a dimension for some 26
            // of the blob): a few left by deletions are normal, a graph of mostly such nodes is not.
            count <= vectors.count + max(1024, vectors.count / 4),
            let entry = reader.read(Int32.self),
            let maxLevel = reader.read(UInt32.self)
        else { return nil }
        var index = HNSWIndex(dimension: dimension, m: Int(m), efConstruction: Int(ef))
        index.entry = entry
        index.maxLevel = Int(maxLevel)
        guard let ids = reader.readArray(Int64.self, count: count),
            let levels = reader.readBytes(count),
            let counts0 = reader.readBytes(count),
            let neighbors0 = reader.readArray(Int32.self, count: count * index.m0),
            let deletedCount = reader.read(UInt32.self),
            let deleted = reader.readArray(Int32.self, count: Int(deletedCount))
        else { return nil }
        index.ids = ids
        index.levels = levels
        index.counts0 = counts0
        index.neighbors0 = neighbors0
        index.deleted = Set(deleted)
        index.data.reserveCapacity(count * dimension)
        for (node, id) in ids.enumerated() {
            if let vector = vectors[id], !index.deleted.contains(Int32(node)) {
                index.data.append(contentsOf: vector)
                index.nodes[id] = Int32(node)
            } else {
                // Gone from the database since the graph was saved: a waypoint with no vector
                // would mislead the search, so its slot gets a zero vector and is never returned.
                index.data.append(contentsOf: repeatElement(0, count: dimension))
                index.deleted.insert(Int32(node))
            }
        }
        for (node, level) in levels.enumerated() where level > 0 {
            var lists: [[Int32]] = []
            for _ in 0..<Int(level) {
                guard let n = reader.read(UInt32.self), let list = reader.readArray(Int32.self, count: Int(n)) else {
                    return nil
                }
                lists.append(list)
            }
            index.upper[Int32(node)] = lists
        }
        let valid = 0..<Int32(count)
        guard count == 0 || valid.contains(entry), neighbors0.allSatisfy({ $0 == -1 || valid.contains($0) }),
            index.upper.values.allSatisfy({ $0.allSatisfy { $0.allSatisfy(valid.contains) } }),
            counts0.allSatisfy({ Int($0) <= index.m0 })
        else { return nil }
        return index
    }
}

/// A node and its score against the query.
private struct Candidate {
    var node: Int32
    var score: Float
}

/// A binary heap of candidates, highest or lowest score on top.
private struct CandidateHeap {
    let higherFirst: Bool
    private(set) var elements: [Candidate] = []

    init(higherFirst: Bool) {
        self.higherFirst = higherFirst
    }

    var count: Int { elements.count }
    var top: Candidate? { elements.first }

    private func above(_ a: Candidate, _ b: Candidate) -> Bool {
        higherFirst ? a.score > b.score : a.score < b.score
    }

    mutating func push(_ element: Candidate) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard above(elements[child], elements[parent]) else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Candidate? {
        guard let first = elements.first else { return nil }
        let last = elements.removeLast()
        if !elements.isEmpty {
            elements[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var best = parent
                if left < elements.count, above(elements[left], elements[best]) { best = left }
                if right < elements.count, above(elements[right], elements[best]) { best = right }
                guard best != parent else { break }
                elements.swapAt(parent, best)
                parent = best
            }
        }
        return first
    }
}

/// Reads little-endian values from a blob, returning nil past its end.
private struct ByteReader {
    private let data: [UInt8]
    private var offset = 0

    init(_ data: Data) {
        self.data = [UInt8](data)
    }

    mutating func read<T: FixedWidthInteger>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard offset + size <= data.count else { return nil }
        var value: T = 0
        for i in 0..<size { value |= T(truncatingIfNeeded: data[offset + i]) << (8 * i) }
        offset += size
        return value
    }

    mutating func readArray<T: FixedWidthInteger>(_: T.Type, count: Int) -> [T]? {
        guard count >= 0, offset + count * MemoryLayout<T>.size <= data.count else { return nil }
        var values: [T] = []
        values.reserveCapacity(count)
        for _ in 0..<count {
            guard let value = read(T.self) else { return nil }
            values.append(value)
        }
        return values
    }

    mutating func readBytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, offset + count <= data.count else { return nil }
        defer { offset += count }
        return Array(data[offset..<(offset + count)])
    }
}
