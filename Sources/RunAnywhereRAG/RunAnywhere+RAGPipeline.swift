@_spi(Backend) import RunAnywhere
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The original SDK's RAG pipeline: one index per SDK instance, created or opened by
/// `RunAnywhereSDK/ragCreatePipeline(config:)` and used by the `rag…` calls. It is a
/// ``RAGIndex`` (named ``indexName``) and the models that serve it; an app that wants several
/// indexes uses `RunAnywhereSDK/createRAGIndex(_:embeddingModel:chunking:)` directly.
public struct RAGConfiguration: Sendable, Equatable, Codable {
    /// The index the pipeline keeps its documents in; created if missing.
    public var indexName: String
    /// The embedding model; it fixes the index's vectors when the index is created.
    public var embeddingModelId: String
    /// The language model that answers; `nil` answers with the one loaded.
    public var llmModelId: String?
    /// How documents are cut, for a new index.
    public var chunking: RAGChunkingOptions
    /// How many sources a query retrieves.
    public var topK: Int

    /// A configuration.
    public init(
        indexName: String = "default",
        embeddingModelId: String = RAGIndex.defaultEmbeddingModel,
        llmModelId: String? = nil,
        chunking: RAGChunkingOptions = RAGChunkingOptions(),
        topK: Int = 4
    ) {
        self.indexName = indexName
        self.embeddingModelId = embeddingModelId
        self.llmModelId = llmModelId
        self.chunking = chunking
        self.topK = topK
    }

    /// The default configuration (the original SDK's factory).
    public static func defaults() -> RAGConfiguration { RAGConfiguration() }

    /// This configuration with the given models filled in; a `nil` keeps the current one.
    public func resolvingLifecycleArtifacts(embedding: String?, llm: String?) -> RAGConfiguration {
        var resolved = self
        if let embedding { resolved.embeddingModelId = embedding }
        if let llm { resolved.llmModelId = llm }
        return resolved
    }

    /// This configuration with the models of two loads filled in (the original SDK's shape).
    ///
    /// - Throws: the load's error when either load failed.
    public func resolvingLifecycleArtifacts(
        embedding: ModelLoadResult,
        llm: ModelLoadResult
    ) throws(SDKException) -> RAGConfiguration {
        if let error = embedding.error ?? llm.error { throw error }
        return resolvingLifecycleArtifacts(embedding: embedding.modelId, llm: llm.modelId)
    }
}

/// A document for the pipeline, its metadata as JSON text (the original SDK's shape).
public struct RAGDocument: Sendable, Equatable {
    /// The document's id; re-ingesting an id replaces the document.
    public var id: String
    /// Its text.
    public var text: String
    /// A JSON object of metadata; string members are kept as they are, others as their JSON.
    public var metadataJSON: String?
    /// An optional title, returned with sources.
    public var title: String?

    /// A document; without an id it gets a random one.
    public init(id: String? = nil, text: String, metadataJSON: String? = nil, title: String? = nil) {
        self.id = id ?? UUID().uuidString
        self.text = text
        self.metadataJSON = metadataJSON
        self.title = title
    }

    /// The metadata as key/value pairs.
    ///
    /// - Throws: `.invalidDocument` when the text is not a JSON object.
    func metadata() throws(SDKException) -> [String: String] {
        guard let metadataJSON, !metadataJSON.trimmed().isEmpty else { return [:] }
        guard let object = (try? JSONValue(parsing: metadataJSON))?.objectValue else {
            throw SDKException(.invalidDocument, "The metadata of document '\(id)' is not a JSON object")
        }
        var pairs: [String: String] = [:]
        for (key, value) in object { pairs[key] = value.stringValue ?? value.jsonText() }
        return pairs
    }
}

/// The pipeline of one instance: its configuration and open index.
final class RAGPipeline: InstanceService {
    private let current = Mutex<(configuration: RAGConfiguration, index: RAGIndex)?>(nil)

    var state: (configuration: RAGConfiguration, index: RAGIndex)? { current.withLock { $0 } }

    /// Makes `index` the pipeline's, returning the one it replaces.
    func replace(with new: (configuration: RAGConfiguration, index: RAGIndex)?) -> RAGIndex? {
        current.withLock { current in
            defer { current = new }
            return current?.index
        }
    }

    func shutdown() async {
        await replace(with: nil)?.close()
    }
}

extension RunAnywhereSDK {
    private var ragPipeline: RAGPipeline {
        get throws(SDKException) { try runtime().instanceService(RAGPipeline.self) { RAGPipeline() } }
    }

    /// The pipeline's configuration and index, or `.indexNotFound` before
    /// `ragCreatePipeline(config:)`.
    private func pipeline() throws(SDKException) -> (configuration: RAGConfiguration, index: RAGIndex) {
        guard let state = try ragPipeline.state else {
            throw SDKException(
                .indexNotFound,
                "No RAG pipeline is open",
                recovery: "Create one first: RunAnywhere.ragCreatePipeline(config:)"
            )
        }
        return state
    }

    /// `baseConfiguration` with the given models filled in.
    public static func ragResolvedConfiguration(
        embeddingModel: String?,
        llmModel: String?,
        baseConfiguration: RAGConfiguration = RAGConfiguration()
    ) -> RAGConfiguration {
        baseConfiguration.resolvingLifecycleArtifacts(embedding: embeddingModel, llm: llmModel)
    }

    /// `baseConfiguration` with the two models filled in (the original SDK's shape).
    ///
    /// The models load when the pipeline is created, not here.
    ///
    /// - Throws: `.modelNotFound` when either model is not registered with this instance.
    public func ragResolvedConfiguration(
        embeddingModel: ModelInfo,
        llmModel: ModelInfo,
        baseConfiguration: RAGConfiguration = .defaults()
    ) async throws(SDKException) -> RAGConfiguration {
        // Checked here, so a model the app never registered fails before any index is made.
        _ = try model(embeddingModel.id)
        _ = try model(llmModel.id)
        return Self.ragResolvedConfiguration(
            embeddingModel: embeddingModel.id,
            llmModel: llmModel.id,
            baseConfiguration: baseConfiguration
        )
    }

    /// `ragCreatePipeline(config:)` with the two models (the original SDK's shape).
    ///
    /// - Throws: `.modelNotFound` for an unregistered model, and what ``ragCreatePipeline(config:)``
    ///   throws.
    public func ragCreatePipeline(
        embeddingModel: ModelInfo,
        llmModel: ModelInfo,
        baseConfiguration: RAGConfiguration = .defaults()
    ) async throws(SDKException) {
        try await ragCreatePipeline(
            config: ragResolvedConfiguration(
                embeddingModel: embeddingModel,
                llmModel: llmModel,
                baseConfiguration: baseConfiguration
            )
        )
    }

    /// `ragCreatePipeline(config:)` with the models given apart.
    public func ragCreatePipeline(
        embeddingModel: String,
        llmModel: String?,
        baseConfiguration: RAGConfiguration = RAGConfiguration()
    ) async throws(SDKException) {
        try await ragCreatePipeline(
            config: Self.ragResolvedConfiguration(
                embeddingModel: embeddingModel,
                llmModel: llmModel,
                baseConfiguration: baseConfiguration
            )
        )
    }

    /// Opens the configuration's index, creating it if missing, loads its language model if
    /// one is named, and makes it the pipeline (closing the previous one).
    ///
    /// - Throws: what `createRAGIndex(_:embeddingModel:chunking:)`, `openRAGIndex(_:maxDatabaseBytes:)`
    ///   and `RunAnywhereSDK/loadModel(_:contextLength:threads:slots:chatTemplate:)` throw.
    public func ragCreatePipeline(config: RAGConfiguration) async throws(SDKException) {
        guard config.topK > 0 else { throw SDKException(.invalidInput, "topK must be at least 1") }
        let index: RAGIndex
        if ragIndexNames().contains(config.indexName) {
            index = try await openRAGIndex(config.indexName)
        } else {
            index = try await createRAGIndex(
                config.indexName,
                embeddingModel: config.embeddingModelId,
                chunking: config.chunking
            )
        }
        if let llm = config.llmModelId {
            do throws(SDKException) {
                try await loadModel(llm)
            } catch {
                await index.close()
                throw error
            }
        }
        try await ragPipeline.replace(with: (config, index))?.close()
    }

    /// Closes the pipeline's index; its documents stay on disk for the next pipeline.
    public func ragDestroyPipeline() async {
        await (try? ragPipeline)?.replace(with: nil)?.close()
    }

    /// Adds a text to the pipeline under a new id.
    @discardableResult
    public func ragIngest(text: String, metadataJSON: String? = nil) async throws(SDKException) -> RAGIngestResult {
        try await ragIngestDocument(RAGDocument(text: text, metadataJSON: metadataJSON))
    }

    /// Adds (or replaces) a document in the pipeline and returns what the index then holds,
    /// as the original SDK's call does; ``ragIngestDocument(_:)`` returns what the document
    /// became.
    ///
    /// - Throws: as ``ragIngestDocument(_:)``.
    @discardableResult
    public func ragIngest(_ document: RAGDocument) async throws(SDKException) -> RAGStatistics {
        try await ragIngestDocument(document)
        return try await ragGetStatistics()
    }

    /// Adds (or replaces) a document in the pipeline: its chunks and their tokens.
    ///
    /// - Throws: `.indexNotFound` without a pipeline, `.invalidDocument`, and what
    ///   `RAGIndex/ingest(documentId:text:title:metadata:)` throws.
    @discardableResult
    public func ragIngestDocument(_ document: RAGDocument) async throws(SDKException) -> RAGIngestResult {
        try await pipeline().index.ingest(
            documentId: document.id,
            text: document.text,
            title: document.title,
            metadata: try document.metadata()
        )
    }

    /// Adds documents one after another; a failure stops there, the ones before it stay.
    @discardableResult
    public func ragAddDocumentsBatch(documents: [RAGDocument]) async throws(SDKException) -> [RAGIngestResult] {
        var results: [RAGIngestResult] = []
        for document in documents { results.append(try await ragIngestDocument(document)) }
        return results
    }

    /// How many documents the pipeline holds; 0 without one, as the original SDK's call
    /// (which counts chunks) answers. ``ragGetStatistics()`` says why it fails.
    public func ragGetDocumentCount() async -> Int {
        (try? await ragGetStatistics().documents) ?? 0
    }

    /// What the pipeline's index holds.
    public func ragGetStatistics() async throws(SDKException) -> RAGStatistics {
        try await pipeline().index.stats()
    }

    /// Removes every document from the pipeline's index.
    public func ragClearDocuments() async throws(SDKException) {
        let index = try pipeline().index
        for id in try await index.documentIds() { try await index.delete(documentId: id) }
    }

    /// How many documents the pipeline holds; 0 without one.
    public var ragDocumentCount: Int {
        get async { await ragGetDocumentCount() }
    }

    /// Answers `question` from the pipeline's documents: the configuration's `topK` sources
    /// and language model unless `options` say otherwise.
    public func ragQuery(question: String, options: RAGQueryOptions? = nil) async throws(SDKException) -> RAGResult {
        let (configuration, index) = try pipeline()
        var resolved = options ?? RAGQueryOptions(search: RAGSearchOptions(topK: configuration.topK))
        if resolved.model == nil { resolved.model = configuration.llmModelId }
        return try await index.query(question, options: resolved)
    }

    /// ``ragQuery(question:options:)`` with the question inside the options.
    ///
    /// - Throws: `.invalidInput` when the options carry no question.
    public func ragQuery(_ options: RAGQueryOptions) async throws(SDKException) -> RAGResult {
        guard let question = options.question else {
            throw SDKException(.invalidInput, "RAGQueryOptions.question is not set")
        }
        return try await ragQuery(question: question, options: options)
    }
}

extension RunAnywhere {
    /// `baseConfiguration` with the given models filled in.
    public static func ragResolvedConfiguration(
        embeddingModel: String?,
        llmModel: String?,
        baseConfiguration: RAGConfiguration = RAGConfiguration()
    ) -> RAGConfiguration {
        RunAnywhereSDK.ragResolvedConfiguration(
            embeddingModel: embeddingModel,
            llmModel: llmModel,
            baseConfiguration: baseConfiguration
        )
    }

    /// Creates or opens the shared instance's pipeline with the models given apart.
    ///
    /// Calls `RunAnywhereSDK.ragCreatePipeline(embeddingModel:llmModel:baseConfiguration:)`.
    public static func ragCreatePipeline(
        embeddingModel: String,
        llmModel: String?,
        baseConfiguration: RAGConfiguration = RAGConfiguration()
    ) async throws(SDKException) {
        try await sdk().ragCreatePipeline(
            embeddingModel: embeddingModel,
            llmModel: llmModel,
            baseConfiguration: baseConfiguration
        )
    }

    /// The shared instance's
    /// `RunAnywhereSDK/ragResolvedConfiguration(embeddingModel:llmModel:baseConfiguration:)`
    /// with `ModelInfo`s (the original SDK's shape).
    public static func ragResolvedConfiguration(
        embeddingModel: ModelInfo,
        llmModel: ModelInfo,
        baseConfiguration: RAGConfiguration = .defaults()
    ) async throws(SDKException) -> RAGConfiguration {
        try await sdk().ragResolvedConfiguration(
            embeddingModel: embeddingModel,
            llmModel: llmModel,
            baseConfiguration: baseConfiguration
        )
    }

    /// Creates or opens the shared instance's pipeline with two `ModelInfo`s (the original
    /// SDK's shape).
    public static func ragCreatePipeline(
        embeddingModel: ModelInfo,
        llmModel: ModelInfo,
        baseConfiguration: RAGConfiguration = .defaults()
    ) async throws(SDKException) {
        try await sdk().ragCreatePipeline(
            embeddingModel: embeddingModel,
            llmModel: llmModel,
            baseConfiguration: baseConfiguration
        )
    }

    /// Creates or opens the shared instance's pipeline.
    ///
    /// Calls `RunAnywhereSDK.ragCreatePipeline(config:)`.
    public static func ragCreatePipeline(config: RAGConfiguration) async throws(SDKException) {
        try await sdk().ragCreatePipeline(config: config)
    }

    /// Closes the shared instance's pipeline; its documents stay on disk.
    public static func ragDestroyPipeline() async {
        await shared?.ragDestroyPipeline()
    }

    /// Adds a text to the shared pipeline under a new id.
    @discardableResult
    public static func ragIngest(
        text: String,
        metadataJSON: String? = nil
    ) async throws(SDKException)
        -> RAGIngestResult
    {
        try await sdk().ragIngest(text: text, metadataJSON: metadataJSON)
    }

    /// Adds (or replaces) a document in the shared pipeline; returns what the index then holds.
    @discardableResult
    public static func ragIngest(_ document: RAGDocument) async throws(SDKException) -> RAGStatistics {
        try await sdk().ragIngest(document)
    }

    /// Adds (or replaces) a document in the shared pipeline; returns what it became.
    @discardableResult
    public static func ragIngestDocument(_ document: RAGDocument) async throws(SDKException) -> RAGIngestResult {
        try await sdk().ragIngestDocument(document)
    }

    /// Adds documents to the shared pipeline one after another.
    @discardableResult
    public static func ragAddDocumentsBatch(
        documents: [RAGDocument]
    ) async throws(SDKException)
        -> [RAGIngestResult]
    {
        try await sdk().ragAddDocumentsBatch(documents: documents)
    }

    /// How many documents the shared pipeline holds; 0 without one.
    public static func ragGetDocumentCount() async -> Int {
        await shared?.ragGetDocumentCount() ?? 0
    }

    /// What the shared pipeline's index holds.
    public static func ragGetStatistics() async throws(SDKException) -> RAGStatistics {
        try await sdk().ragGetStatistics()
    }

    /// Removes every document from the shared pipeline.
    public static func ragClearDocuments() async throws(SDKException) {
        try await sdk().ragClearDocuments()
    }

    /// How many documents the shared pipeline holds; 0 without one.
    public static var ragDocumentCount: Int {
        get async { await shared?.ragDocumentCount ?? 0 }
    }

    /// Answers `question` from the shared pipeline's documents.
    public static func ragQuery(
        question: String,
        options: RAGQueryOptions? = nil
    ) async throws(SDKException)
        -> RAGResult
    {
        try await sdk().ragQuery(question: question, options: options)
    }

    /// Answers the question the options carry from the shared pipeline's documents.
    public static func ragQuery(_ options: RAGQueryOptions) async throws(SDKException) -> RAGResult {
        try await sdk().ragQuery(options)
    }
}
