import Foundation
import RunAnywhereTestSupport
import RunAnywhereTesting
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Reranking on the deterministic backend")
struct RerankUnitTests {
    static let passages = [
        "Water the tomatoes every morning in summer.",
        "The wifi password is printed under the router.",
        "Restart the router when the wifi stalls.",
        "The spare key hangs in the hall.",
    ]

    @Test("Scores are the model's, in the documents' order, and the ranking sorts them")
    func scoresAndRanking() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadRerankModel(DeterministicModels.reranker)
            #expect(await sdk.currentRerankModel?.id == DeterministicModels.reranker)
            let result = try await sdk.rerank("wifi router password", documents: Self.passages)
            // The share of the query's three words each passage holds.
            let expected: [Float] = [0, 1, 2.0 / 3, 0]
            #expect(result.scores == expected.map(Double.init))
            #expect(result.ranking == [1, 2, 0, 3])
            #expect(result.modelId == DeterministicModels.reranker)
            #expect(try await sdk.rerank("wifi", documents: []).scores.isEmpty)
            // The embedding model stays free for the index: both load side by side.
            try await sdk.loadEmbeddingModel(DeterministicModels.embedding)
            #expect(await sdk.currentRerankModel?.id == DeterministicModels.reranker)
            try await sdk.unloadRerankModel()
            #expect(await sdk.currentRerankModel == nil)
        }
    }

    @Test("Wrong models, no model, an empty or too long query are typed errors")
    func badInput() async throws {
        try await withDeterministicSDK { sdk in
            await expectCode(.modelNotLoaded) { _ = try await sdk.rerank("wifi", documents: Self.passages) }
            await expectCode(.invalidInput) { try await sdk.loadRerankModel(DeterministicModels.embedding) }
            await expectCode(.invalidInput) { try await sdk.loadEmbeddingModel(DeterministicModels.reranker) }
            await expectCode(.invalidInput) { try await sdk.loadRerankModel(DeterministicModels.llm) }
            #expect(await sdk.currentRerankModel == nil)
            try await sdk.loadRerankModel(DeterministicModels.reranker)
            await expectCode(.emptyText) { _ = try await sdk.rerank("  \n", documents: Self.passages) }
            let long = Array(repeating: "word", count: 200).joined(separator: " ")
            await expectCode(.invalidInput) { _ = try await sdk.rerank(long, documents: Self.passages) }
            // A long passage is cut to the window, not refused.
            let result = try await sdk.rerank("wifi", documents: [long + " wifi", "wifi"])
            #expect(result.truncatedDocuments == 1)
            #expect(result.scores == [0, 1])
        }
    }
}
