import Foundation
import RunAnywhereTestSupport
import RunAnywhereTesting
import Testing

@_spi(Backend) @testable import RunAnywhere
@testable import RunAnywhereRAG

/// Clustered unit vectors, like text embeddings: a few hundred centres with noise around them.
private func clusteredVectors(count: Int, dimension: Int, seed: UInt64) -> [[Float]] {
    var random = SplitMix(seed: seed)
    func gaussian() -> Float {
        let u = max(random.nextUnit(), 1e-12)
        let v = random.nextUnit()
        return Float((-2 * log(u)).squareRoot() * cos(2 * .pi * v))
    }
    let centres = (0..<200).map { _ in VectorMath.normalized((0..<dimension).map { _ in gaussian() }) }
    return (0..<count).map { i in
        let centre = centres[Int(random.next() % UInt64(centres.count))]
        _ = i
        return VectorMath.normalized(centre.map { $0 + 0.35 * gaussian() })
    }
}

@Suite("Approximate vector search (HNSW)")
struct HNSWIndexTests {
    @Test("Recall@10 against exact search is at least 0.95, and removed chunks never come back")
    func recallAgainstExactSearch() {
        let dimension = 48
        let vectors = clusteredVectors(count: 2500, dimension: dimension, seed: 7)
        var graph = HNSWIndex(dimension: dimension)
        var exact = ExactVectorIndex(dimension: dimension)
        for (i, vector) in vectors.enumerated() {
            graph.add(Int64(i), vector)
            exact.add(Int64(i), vector)
        }
        let queries = clusteredVectors(count: 60, dimension: dimension, seed: 99)
        var found = 0
        for query in queries {
            let truth = Set(exact.search(query, k: 10).map(\.id))
            found += graph.search(query, k: 10, ef: 96).filter { truth.contains($0.id) }.count
        }
        let recall = Double(found) / Double(queries.count * 10)
        #expect(recall >= 0.95, "recall@10 \(recall)")

        for id in stride(from: Int64(0), to: 2500, by: 2) { graph.remove(id) }
        for query in queries.prefix(20) {
            let results = graph.search(query, k: 10, ef: 96)
            #expect(results.count == 10)
            #expect(results.allSatisfy { $0.id % 2 == 1 })
        }
        #expect(graph.count == 1250)
    }

    @Test("A saved graph loads back and answers the same; damaged or mismatched blobs are refused")
    func serializationRoundTrip() throws {
        let dimension = 16
        let vectors = clusteredVectors(count: 600, dimension: dimension, seed: 3)
        var graph = HNSWIndex(dimension: dimension)
        for (i, vector) in vectors.enumerated() { graph.add(Int64(i * 3), vector) }
        graph.remove(9)
        var byId: [Int64: ArraySlice<Float>] = [:]
        for (i, vector) in vectors.enumerated() where i != 3 { byId[Int64(i * 3)] = vector[...] }
        let blob = graph.serialized()
        let loaded = try #require(HNSWIndex.deserialize(blob, vectors: byId, dimension: dimension))
        #expect(loaded.count == graph.count)
        for query in vectors.prefix(20) {
            #expect(loaded.search(query, k: 5, ef: 40).map(\.id) == graph.search(query, k: 5, ef: 40).map(\.id))
        }
        #expect(HNSWIndex.deserialize(blob, vectors: byId, dimension: dimension + 1) == nil)
        #expect(HNSWIndex.deserialize(blob.prefix(blob.count / 2), vectors: byId, dimension: dimension) == nil)
        #expect(HNSWIndex.deserialize(Data("not a graph".utf8), vectors: byId, dimension: dimension) == nil)
        // A chunk deleted from the database since the save is never returned.
        byId[0] = nil
        let repaired = try #require(HNSWIndex.deserialize(blob, vectors: byId, dimension: dimension))
        #expect(!repaired.search(vectors[0], k: 5, ef: 40).contains { $0.id == 0 })
        // A graph of nodes the database has no vectors for would be all zero vectors (4 bytes a
        // dimension each, for about 26 of the blob): refused, so the index is rebuilt instead.
        #expect(HNSWIndex.deserialize(blob, vectors: [:], dimension: dimension) != nil, "600 nodes, under the slack")
        var many = HNSWIndex(dimension: dimension)
        for i in 0..<2000 { many.add(Int64(i), vectors[i % vectors.count]) }
        let few = Dictionary(uniqueKeysWithValues: (0..<100).map { (Int64($0), vectors[$0][...]) })
        #expect(HNSWIndex.deserialize(many.serialized(), vectors: few, dimension: dimension) == nil)
    }

    @Test("A RAG index above the threshold searches its graph, saves it, and reopens with it")
    func indexUsesAndPersistsTheGraph() async throws {
        try await withDeterministicSDK { sdk in
            let index = try await sdk.createRAGIndex(
                "graph",
                embeddingModel: DeterministicModels.embedding,
                chunking: RAGChunkingOptions(chunkTokens: 8, overlapTokens: 0)
            )
            await index.configureVectorSearch(approximateThreshold: 50, searchBeam: 64)
            let topics = ["kitchen", "garden", "garage", "attic", "cellar", "porch", "hall", "study"]
            for (i, topic) in topics.enumerated() {
                let text = (0..<12).map { "The \(topic) note \($0) mentions \(topic) item \($0 + i * 12)." }
                    .joined(separator: " ")
                try await index.ingest(documentId: topic, text: text)
            }
            let hits = try await index.search("attic item", options: RAGSearchOptions(topK: 3, mode: .vector))
            #expect(hits.first?.documentId == "attic")
            #expect(try await index.stats().vectorSearch == "hnsw")
            try await index.delete(documentId: "attic")
            let after = try await index.search("attic item", options: RAGSearchOptions(topK: 3, mode: .vector))
            #expect(!after.contains { $0.documentId == "attic" })
            await index.close()
            let reopened = try await sdk.openRAGIndex("graph")
            await reopened.configureVectorSearch(approximateThreshold: 50, searchBeam: 64)
            let again = try await reopened.search("cellar item", options: RAGSearchOptions(topK: 1, mode: .vector))
            #expect(again.first?.documentId == "cellar")
        }
    }
}
