#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// Loads a text-embedding model (e.g. `all-minilm-l6-v2`), unloading the previous one.
    ///
    /// ```swift
    /// try await sdk.loadEmbeddingModel("all-minilm-l6-v2")
    /// let a = try await sdk.embed("turn on the kitchen lights")
    /// let b = try await sdk.embed("switch the lights on in the kitchen")
    /// print(RunAnywhere.cosineSimilarity(a, b))  // ≈ 0.89
    /// ```
    public func loadEmbeddingModel(
        _ id: String,
        configuration: EmbeddingsLoadConfiguration = EmbeddingsLoadConfiguration()
    ) async throws(SDKException) {
        try await runtime().embeddings.load(id, configuration: configuration)
    }

    /// Unloads the embedding model.
    public func unloadEmbeddingModel() async throws(SDKException) {
        try await runtime().embeddings.unload()
    }

    /// The loaded embedding model, if any.
    public var currentEmbeddingModel: ModelInfo? {
        get async { try? await runtime().embeddings.currentModel }
    }

    /// Dimension and window of the loaded embedding model, if any.
    public var embeddingModelInfo: EmbeddingModelInfo? {
        get async { try? await runtime().embeddings.info }
    }

    /// The vector of one text (normalized unless the options say otherwise).
    ///
    /// - Throws: `.modelNotLoaded` without an embedding model, `.emptyText` for a text with
    ///   nothing to embed.
    public func embed(
        _ text: String,
        options: EmbeddingOptions = EmbeddingOptions()
    ) async throws(SDKException)
        -> [Float]
    {
        try await embeddings(for: [text], options: options).vectors[0]
    }

    /// The vectors of several texts, in order; the backend encodes several texts per engine call.
    public func embed(
        _ texts: [String],
        options: EmbeddingOptions = EmbeddingOptions()
    ) async throws(SDKException)
        -> [[Float]]
    {
        try await embeddings(for: texts, options: options).vectors
    }

    /// The vectors of several texts with token counts and timing.
    public func embeddings(
        for texts: [String],
        options: EmbeddingOptions = EmbeddingOptions()
    ) async throws(SDKException) -> EmbeddingResult {
        try await runtime().embeddings.embed(texts, options: options)
    }

    /// Content tokens of `text` for the loaded embedding model (special tokens excluded).
    public func embeddingTokenCount(_ text: String) async throws(SDKException) -> Int {
        try await runtime().embeddings.tokenCount(text)
    }
}

extension RunAnywhere {
    /// Loads a text-embedding model (e.g. `all-minilm-l6-v2`), unloading the previous one.
    ///
    /// Calls ``RunAnywhereSDK/loadEmbeddingModel(_:configuration:)`` on the shared instance.
    public static func loadEmbeddingModel(
        _ id: String,
        configuration: EmbeddingsLoadConfiguration = EmbeddingsLoadConfiguration()
    ) async throws(SDKException) {
        try await sdk().loadEmbeddingModel(id, configuration: configuration)
    }

    /// Unloads the embedding model.
    ///
    /// Calls ``RunAnywhereSDK/unloadEmbeddingModel()`` on the shared instance.
    public static func unloadEmbeddingModel() async throws(SDKException) {
        try await sdk().unloadEmbeddingModel()
    }

    /// The shared instance's loaded embedding model, if any.
    public static var currentEmbeddingModel: ModelInfo? {
        get async { await shared?.currentEmbeddingModel }
    }

    /// Dimension and window of the shared instance's embedding model, if any.
    public static var embeddingModelInfo: EmbeddingModelInfo? {
        get async { await shared?.embeddingModelInfo }
    }

    /// The vector of one text.
    ///
    /// Calls the instance method `embed(_:options:)` on the shared instance.
    public static func embed(
        _ text: String,
        options: EmbeddingOptions = EmbeddingOptions()
    ) async throws(SDKException)
        -> [Float]
    {
        try await sdk().embed(text, options: options)
    }

    /// The vectors of several texts, in order.
    ///
    /// Calls the instance method `embed(_:options:)` on the shared instance.
    public static func embed(
        _ texts: [String],
        options: EmbeddingOptions = EmbeddingOptions()
    ) async throws(SDKException) -> [[Float]] {
        try await sdk().embed(texts, options: options)
    }

    /// The vectors of several texts with token counts and timing.
    ///
    /// Calls ``RunAnywhereSDK/embeddings(for:options:)`` on the shared instance.
    public static func embeddings(
        for texts: [String],
        options: EmbeddingOptions = EmbeddingOptions()
    ) async throws(SDKException) -> EmbeddingResult {
        try await sdk().embeddings(for: texts, options: options)
    }

    /// The cosine of the angle between two vectors, in [-1, 1]; 0 when either is zero or
    /// their lengths differ.
    public static func cosineSimilarity(_ a: [Float], _ b: [Float]) -> Float {
        VectorMath.cosine(a, b)
    }
}
