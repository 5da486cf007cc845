import Foundation
import RunAnywhereTestSupport
import RunAnywhereTesting
import Testing

@_spi(Backend) @testable import RunAnywhere
@testable import RunAnywhereRAG

/// The original SDK's single RAG pipeline, on the deterministic backend.
@Suite("The RAG pipeline of the original SDK")
struct RAGPipelineTests {
    @Test("Without a pipeline the rag calls say so; with one they ingest, count, answer, clear and reopen its index")
    func pipeline() async throws {
        try await withDeterministicSDK { sdk in
            // Without a pipeline the count is 0, as the original SDK's; the statistics say why.
            #expect(await sdk.ragGetDocumentCount() == 0)
            await #expect(throws: SDKException.self) { try await sdk.ragGetStatistics() }
            #expect(await sdk.ragDocumentCount == 0)

            let config = RunAnywhereSDK.ragResolvedConfiguration(
                embeddingModel: DeterministicModels.embedding,
                llmModel: DeterministicModels.llm,
                baseConfiguration: RAGConfiguration(indexName: "seed", topK: 2)
            )
            #expect(config.embeddingModelId == DeterministicModels.embedding)
            #expect(config.llmModelId == DeterministicModels.llm)
            try await sdk.ragCreatePipeline(config: config)
            #expect(sdk.ragIndexNames().contains("seed"))
            #expect(await sdk.currentLLMModel?.id == DeterministicModels.llm)

            try await sdk.ragIngest(
                text: "Oslo is the capital of Norway.",
                metadataJSON: #"{"lang": "en", "year": 2024}"#
            )
            let documents = [
                RAGDocument(id: "bergen", text: "Bergen is a city on the west coast."),
                RAGDocument(id: "trondheim", text: "Trondheim was once the capital.", title: "Trondheim"),
            ]
            #expect(try await sdk.ragAddDocumentsBatch(documents: documents).count == 2)
            #expect(await sdk.ragGetDocumentCount() == 3)
            #expect(await sdk.ragDocumentCount == 3)
            let stats = try await sdk.ragGetStatistics()
            #expect(stats.name == "seed")
            #expect(stats.lastUpdated != nil)
            await #expect(throws: SDKException.self) {
                try await sdk.ragIngest(RAGDocument(text: "x", metadataJSON: "[1, 2]"))
            }

            let answer = try await sdk.ragQuery(question: "What is the capital of Norway?")
            #expect(answer.sources.count == 2)
            #expect(answer.totalTime * 1_000 >= answer.retrievalMs)
            let inside = try await sdk.ragQuery(RAGQueryOptions.defaults(question: "Which city is on the coast?"))
            // Given options keep their own topK (4): every one of the three chunks, not the pipeline's 2.
            #expect(inside.sources.count == 3)
            await #expect(throws: SDKException.self) { try await sdk.ragQuery(RAGQueryOptions()) }

            // Destroying closes the index; a new pipeline on the same name finds the documents.
            await sdk.ragDestroyPipeline()
            await #expect(throws: SDKException.self) { try await sdk.ragGetStatistics() }
            try await sdk.ragCreatePipeline(
                embeddingModel: DeterministicModels.embedding,
                llmModel: nil,
                baseConfiguration: config
            )
            #expect(await sdk.ragGetDocumentCount() == 3)
            // The original's call returns the index's statistics; ours, what the document became.
            let after = try await sdk.ragIngest(RAGDocument(id: "stavanger", text: "Stavanger is an oil town."))
            #expect(after.documents == 4)
            #expect(after.chunks >= 4)
            let replaced = try await sdk.ragIngestDocument(
                RAGDocument(id: "stavanger", text: "Stavanger is in Rogaland.")
            )
            #expect(replaced.replaced)
            #expect(await sdk.ragGetDocumentCount() == 4)
            try await sdk.ragClearDocuments()
            #expect(await sdk.ragGetDocumentCount() == 0)
            await sdk.ragDestroyPipeline()
        }
    }

    @Test("The original SDK's calls take ModelInfo and load results; an unregistered model or a failed load is typed")
    func seedShapes() async throws {
        try await withDeterministicSDK { sdk in
            let embedder = try sdk.model(DeterministicModels.embedding)
            let llm = try sdk.model(DeterministicModels.llm)
            let base = RAGConfiguration(indexName: "by-info", topK: 1)
            let config = try await sdk.ragResolvedConfiguration(
                embeddingModel: embedder,
                llmModel: llm,
                baseConfiguration: base
            )
            #expect(config == base.resolvingLifecycleArtifacts(embedding: embedder.id, llm: llm.id))

            var stranger = llm
            stranger.id = "never-registered"
            await expectCode(.modelNotFound) {
                try await sdk.ragCreatePipeline(embeddingModel: embedder, llmModel: stranger, baseConfiguration: base)
            }
            #expect(!sdk.ragIndexNames().contains("by-info"), "a refused pipeline makes no index")

            try await sdk.ragCreatePipeline(embeddingModel: embedder, llmModel: llm, baseConfiguration: base)
            #expect(sdk.ragIndexNames().contains("by-info"))
            #expect(await sdk.currentLLMModel?.id == llm.id)
            try await sdk.ragIngest(text: "Oslo is the capital of Norway.")
            #expect(await sdk.ragGetDocumentCount() == 1)
            await sdk.ragDestroyPipeline()

            let loaded = ModelLoadResult(modelId: llm.id, model: llm, error: nil)
            let embedded = ModelLoadResult(modelId: embedder.id, model: embedder, error: nil)
            let resolved = try RAGConfiguration.defaults().resolvingLifecycleArtifacts(embedding: embedded, llm: loaded)
            #expect(resolved.embeddingModelId == embedder.id)
            #expect(resolved.llmModelId == llm.id)
            let failed = ModelLoadResult(
                modelId: "gone",
                model: nil,
                error: .modelNotFound("Model gone is not registered")
            )
            let refused = await expectCode(.modelNotFound) {
                try RAGConfiguration.defaults().resolvingLifecycleArtifacts(embedding: embedded, llm: failed)
            }
            #expect(refused == failed.error, "the failed load's own error")
        }
    }
}
