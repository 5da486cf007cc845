#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Text embeddings: owns the loaded embedding model, splits texts that exceed its window,
/// pools the windows' vectors, normalizes, times the work and publishes events.
package actor EmbeddingsCapability {
    private let services: ServiceRegistry
    private let events: EventBus
    private let router: ModelRouter
    let lifecycle: ModelLifecycle<any EmbeddingsService>

    init(services: ServiceRegistry, registry: ModelRegistry, events: EventBus, router: ModelRouter) {
        self.services = services
        self.events = events
        self.router = router
        self.lifecycle = ModelLifecycle(category: .embedding, registry: registry, events: events) { service in
            await service.unload()
        }
    }

    func load(_ id: String, configuration: EmbeddingsLoadConfiguration) async throws(SDKException) {
        let services = self.services
        let router = self.router
        try await lifecycle.load(id) { model in
            let load: RoutedService<any EmbeddingsService>.Loader = {
                try await Self.makeService(for: $0, configuration: configuration, services: services, reranker: false)
            }
            guard model.remote != nil else { return try await load(model) }
            return try await RoutedEmbeddingsService.load(model: model, router: router, local: load, remote: load)
        }
    }

    func unload() async {
        await lifecycle.unload()
    }

    /// Loads `model` through its backend and checks it is the kind the caller holds: an
    /// embedding model, or with `reranker` a cross-encoder. The wrong kind is unloaded and
    /// is `.invalidInput`.
    static func makeService(
        for model: ModelInfo,
        configuration: EmbeddingsLoadConfiguration,
        services: ServiceRegistry,
        reranker: Bool
    ) async throws -> any EmbeddingsService {
        let service = try await services.embeddings.provider(for: model).factory(model, configuration)
        if service.isReranker == reranker { return service }
        await service.unload()
        if reranker {
            throw SDKException(
                .invalidInput,
                "\(model.id) is an embedding model, not a reranker (a cross-encoder with a scoring head)",
                recovery: "Load it with loadEmbeddingModel(\"\(model.id)\")"
            )
        }
        throw SDKException(
            .invalidInput,
            "\(model.id) is a reranking model: it scores query–passage pairs and has no text vectors",
            recovery: "Load it with loadRerankModel(\"\(model.id)\"); load an embedding model here"
        )
    }

    var currentModel: ModelInfo? { get async { await lifecycle.currentModel } }

    var info: EmbeddingModelInfo? {
        get async {
            guard let service = await lifecycle.currentService else { return nil }
            return EmbeddingModelInfo(
                modelId: service.model.id,
                dimension: service.dimension,
                maxTokens: service.maxTokensPerWindow
            )
        }
    }

    /// The loaded service, or `.modelNotLoaded`.
    func service() async throws(SDKException) -> any EmbeddingsService {
        guard let service = await lifecycle.currentService else {
            throw SDKException(
                .modelNotLoaded,
                "No embedding model is loaded",
                recovery: "Load one first: loadEmbeddingModel(\"\(DefaultModelIds.embedding)\")"
            )
        }
        return service
    }

    /// Content tokens of `text` in the loaded model's vocabulary.
    func tokenCount(_ text: String) async throws(SDKException) -> Int {
        try await tokenCounts([text])[0]
    }

    /// Content tokens of each text, in one trip to the capability.
    package func tokenCounts(_ texts: [String]) async throws(SDKException) -> [Int] {
        let service = try await service()
        var counts: [Int] = []
        counts.reserveCapacity(texts.count)
        do {
            for text in texts { counts.append(try await service.tokenize(text).count) }
        } catch {
            throw SDKException.wrap(error, as: .backendError, "Tokenizing for embeddings failed")
        }
        return counts
    }

    func embed(_ texts: [String], options: EmbeddingOptions) async throws(SDKException) -> EmbeddingResult {
        let service = try await service()
        for (index, text) in texts.enumerated()
        where text.unicodeScalars.allSatisfy({ $0.properties.isWhitespace || $0 == "\0" }) {
            throw SDKException(
                .emptyText,
                "Text \(index) has nothing to embed",
                recovery: "Pass text with at least one visible character"
            )
        }
        let start = ContinuousClock.now
        if let whole = try await wholeTextEmbeddings(texts, service: service, options: options, start: start) {
            return whole
        }
        let window = service.maxTokensPerWindow
        var windows: [[Int32]] = []
        var owners: [Int] = []
        var tokenCounts: [Int] = []
        var overflowed = 0
        do {
            for (index, text) in texts.enumerated() {
                let tokens = try await service.tokenize(text)
                guard !tokens.isEmpty else {
                    throw SDKException(.emptyText, "Text \(index) has no tokens in \(service.model.id)'s vocabulary")
                }
                tokenCounts.append(tokens.count)
                if tokens.count > window { overflowed += 1 }
                let pieces = options.overflow == .truncate ? 1 : (tokens.count + window - 1) / window
                for piece in 0..<pieces {
                    let lower = piece * window
                    windows.append(Array(tokens[lower..<min(lower + window, tokens.count)]))
                    owners.append(index)
                }
            }
        } catch {
            throw SDKException.wrap(error, as: .backendError, "Tokenizing for embeddings failed")
        }
        let pooled: [[Float]]
        do {
            pooled = try await service.embed(windows: windows)
        } catch {
            throw SDKException.wrap(error, as: .backendError, "Embedding failed")
        }
        guard pooled.count == windows.count, pooled.allSatisfy({ $0.count == service.dimension }) else {
            throw SDKException(
                .backendError,
                "\(service.model.id) returned \(pooled.count) vectors for \(windows.count) windows"
            )
        }
        // A long text's vector is the token-weighted mean of its windows' mean-pooled
        // vectors: the mean over all its tokens, as one window would give if it fitted.
        var vectors = [[Float]](repeating: [Float](repeating: 0, count: service.dimension), count: texts.count)
        var weights = [Float](repeating: 0, count: texts.count)
        for (slot, vector) in pooled.enumerated() {
            let owner = owners[slot]
            let weight = Float(windows[slot].count)
            weights[owner] += weight
            for i in vector.indices { vectors[owner][i] += vector[i] * weight }
        }
        for index in vectors.indices {
            let total = weights[index]
            vectors[index] = vectors[index].map { $0 / total }
            if options.normalize { vectors[index] = VectorMath.normalized(vectors[index]) }
            guard vectors[index].allSatisfy(\.isFinite) else {
                throw SDKException(.backendError, "\(service.model.id) produced a non-finite vector for text \(index)")
            }
        }
        let ms = start.duration(to: .now).milliseconds
        let tokens = tokenCounts.reduce(0, +)
        events.publish(
            .embeddingCompleted(modelId: service.model.id, texts: texts.count, tokens: tokens, durationMs: ms)
        )
        return EmbeddingResult(
            vectors: vectors,
            modelId: service.model.id,
            dimension: service.dimension,
            tokenCounts: tokenCounts,
            overflowedTexts: overflowed,
            durationMs: ms
        )
    }

    /// The vectors of a backend that embeds whole texts, normalized and checked like the
    /// capability's own; `nil` when the service leaves the work to the capability.
    private func wholeTextEmbeddings(
        _ texts: [String],
        service: any EmbeddingsService,
        options: EmbeddingOptions,
        start: ContinuousClock.Instant
    ) async throws(SDKException) -> EmbeddingResult? {
        let whole: WholeTextEmbeddings
        do {
            guard let made = try await service.embedWholeTexts(texts) else { return nil }
            whole = made
        } catch {
            throw SDKException.wrap(error, as: .backendError, "Embedding failed")
        }
        guard whole.vectors.count == texts.count,
            whole.vectors.allSatisfy({ $0.count == service.dimension && $0.allSatisfy(\.isFinite) })
        else {
            throw SDKException(
                .remoteBadResponse,
                "\(service.model.id) returned \(whole.vectors.count) vectors for \(texts.count) texts, "
                    + "not all of dimension \(service.dimension) and finite"
            )
        }
        let vectors = options.normalize ? whole.vectors.map(VectorMath.normalized) : whole.vectors
        let ms = start.duration(to: .now).milliseconds
        let tokens = whole.tokenCounts.reduce(0, +)
        events.publish(
            .embeddingCompleted(modelId: service.model.id, texts: texts.count, tokens: tokens, durationMs: ms)
        )
        var result = EmbeddingResult(
            vectors: vectors,
            modelId: service.model.id,
            dimension: service.dimension,
            tokenCounts: whole.tokenCounts,
            overflowedTexts: 0,
            durationMs: ms
        )
        result.executedOn = whole.executedOn
        return result
    }
}
