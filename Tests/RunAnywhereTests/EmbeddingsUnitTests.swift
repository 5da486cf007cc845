import Foundation
import RunAnywhereTestSupport
import RunAnywhereTesting
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Embeddings on the deterministic backend")
struct EmbeddingsUnitTests {
    @Test("Texts that share words are closer than texts that share none, and vectors are unit length")
    func similarityFollowsSharedWords() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadEmbeddingModel(DeterministicModels.embedding)
            let vectors = try await sdk.embed([
                "turn on the kitchen lights",
                "kitchen lights on please",
                "what is the capital of france",
            ])
            #expect(vectors.count == 3)
            for vector in vectors {
                #expect(abs(VectorMath.dot(vector, vector) - 1) < 1e-4)
            }
            let close = RunAnywhere.cosineSimilarity(vectors[0], vectors[1])
            let far = RunAnywhere.cosineSimilarity(vectors[0], vectors[2])
            #expect(close > 0.5)
            #expect(abs(far) < 0.3)
            #expect(close > far)
            let info = try #require(await sdk.embeddingModelInfo)
            #expect(info.dimension == vectors[0].count)
            #expect(info.modelId == DeterministicModels.embedding)
        }
    }

    @Test("One text alone and in a batch gives the same vector")
    func batchingDoesNotChangeVectors() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadEmbeddingModel(DeterministicModels.embedding)
            let alone = try await sdk.embed("the quick brown fox")
            let batch = try await sdk.embed(["jumps over", "the quick brown fox", "the lazy dog"])
            #expect(alone == batch[1])
        }
    }

    @Test("A text longer than the window is split and pooled, or truncated when asked")
    func longTextsAreSplitOrTruncated() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadEmbeddingModel(DeterministicModels.embedding)
            let window = try #require(await sdk.embeddingModelInfo).maxTokens
            let first = Array(repeating: "alpha", count: window).joined(separator: " ")
            let second = Array(repeating: "omega", count: window).joined(separator: " ")
            let long = first + " " + second
            let split = try await sdk.embeddings(for: [long])
            #expect(split.overflowedTexts == 1)
            #expect(split.tokenCounts == [2 * window])
            let truncated = try await sdk.embed(long, options: EmbeddingOptions(overflow: .truncate))
            let alpha = try await sdk.embed("alpha")
            let omega = try await sdk.embed("omega")
            // Split: the mean of both windows; truncated: the first window only.
            #expect(RunAnywhere.cosineSimilarity(truncated, alpha) > 0.999)
            #expect(abs(RunAnywhere.cosineSimilarity(split.vectors[0], alpha) - 0.7071) < 0.1)
            #expect(abs(RunAnywhere.cosineSimilarity(split.vectors[0], omega) - 0.7071) < 0.1)
        }
    }

    @Test("Normalization can be turned off")
    func normalizationIsAnOption() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadEmbeddingModel(DeterministicModels.embedding)
            let raw = try await sdk.embed("red green blue", options: EmbeddingOptions(normalize: false))
            #expect(abs(VectorMath.dot(raw, raw) - 1) > 0.01)
        }
    }

    @Test("Embedding without a model, or an empty text, is a typed error")
    func badInputIsTyped() async throws {
        try await withDeterministicSDK { sdk in
            await #expect(throws: SDKException.self) { try await sdk.embed("hello") }
            do {
                _ = try await sdk.embed("hello")
            } catch let error as SDKException {
                #expect(error.code == .modelNotLoaded)
            }
            try await sdk.loadEmbeddingModel(DeterministicModels.embedding)
            for text in ["", "   \n\t"] {
                do {
                    _ = try await sdk.embed(["fine", text])
                    Issue.record("an empty text was embedded")
                } catch let error as SDKException {
                    #expect(error.code == .emptyText)
                }
            }
            #expect(try await sdk.embed([]).isEmpty)
        }
    }

    @Test("Embedding publishes an event with its token count")
    func embeddingPublishesAnEvent() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadEmbeddingModel(DeterministicModels.embedding)
            let events = sdk.events.events(for: .embeddings)
            _ = try await sdk.embed(["one two three", "four"])
            for await event in events {
                if case .embeddingCompleted(let model, let texts, let tokens, _) = event.kind {
                    #expect(model == DeterministicModels.embedding)
                    #expect(texts == 2)
                    #expect(tokens == 4)
                    break
                }
            }
        }
    }

    @Test("Cosine similarity handles zero and mismatched vectors")
    func cosineEdgeCases() {
        #expect(RunAnywhere.cosineSimilarity([1, 0], [0, 1]) == 0)
        #expect(RunAnywhere.cosineSimilarity([1, 2, 3], [2, 4, 6]) > 0.9999)
        #expect(RunAnywhere.cosineSimilarity([0, 0], [1, 1]) == 0)
        #expect(RunAnywhere.cosineSimilarity([1], [1, 2]) == 0)
        let long = (0..<389).map { Float($0 % 7) - 3 }
        let expected = long.reduce(0) { $0 + $1 * $1 }
        #expect(abs(VectorMath.dot(long, long) - expected) < 1e-3)
    }
}
