#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// Loads a reranking model: a GGUF cross-encoder with rank pooling (e.g. a BERT or
    /// XLM-RoBERTa reranker converted by llama.cpp's tools), unloading the previous one.
    ///
    /// A reranker reads a query and a passage together, so it judges relevance better than
    /// comparing two embeddings, at the cost of one model pass per passage: use it on the
    /// best few results of a search (see `RAGReranker.crossEncoder(candidates:)` in `RunAnywhereRAG`).
    ///
    /// ```swift
    /// try await sdk.loadRerankModel("my-reranker")
    /// let result = try await sdk.rerank("how do I reset the router?", documents: passages)
    /// let best = passages[result.ranking[0]]
    /// ```
    ///
    /// - Throws: `.invalidInput` for an embedding model (no scoring head), and what loading
    ///   any model throws.
    public func loadRerankModel(
        _ id: String,
        configuration: EmbeddingsLoadConfiguration = EmbeddingsLoadConfiguration()
    ) async throws(SDKException) {
        try await runtime().reranking.load(id, configuration: configuration)
    }

    /// Unloads the reranking model.
    public func unloadRerankModel() async throws(SDKException) {
        try await runtime().reranking.unload()
    }

    /// The loaded reranking model, if any.
    public var currentRerankModel: ModelInfo? {
        get async { try? await runtime().reranking.currentModel }
    }

    /// Scores each document's relevance to `query` with the loaded reranking model.
    ///
    /// Documents longer than the model's window beside the query are cut (the result counts
    /// them); the query is never cut.
    ///
    /// - Parameters:
    ///   - query: what the user asked.
    ///   - documents: the passages to score.
    /// - Throws: `.modelNotLoaded` without a reranking model, `.emptyText` for an empty
    ///   query, `.invalidInput` for a query too long for the model's window.
    public func rerank(_ query: String, documents: [String]) async throws(SDKException) -> RerankResult {
        try await runtime().reranking.rerank(query, documents: documents)
    }
}

extension RunAnywhere {
    /// Loads a reranking model on the shared instance.
    ///
    /// Calls ``RunAnywhereSDK/loadRerankModel(_:configuration:)`` on the shared instance.
    public static func loadRerankModel(
        _ id: String,
        configuration: EmbeddingsLoadConfiguration = EmbeddingsLoadConfiguration()
    ) async throws(SDKException) {
        try await sdk().loadRerankModel(id, configuration: configuration)
    }

    /// Unloads the shared instance's reranking model.
    public static func unloadRerankModel() async throws(SDKException) {
        try await sdk().unloadRerankModel()
    }

    /// The shared instance's reranking model, if any.
    public static var currentRerankModel: ModelInfo? {
        get async { await shared?.currentRerankModel }
    }

    /// Scores each document's relevance to `query`.
    ///
    /// Calls ``RunAnywhereSDK/rerank(_:documents:)`` on the shared instance.
    public static func rerank(_ query: String, documents: [String]) async throws(SDKException) -> RerankResult {
        try await sdk().rerank(query, documents: documents)
    }
}
