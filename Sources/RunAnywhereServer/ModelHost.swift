import Foundation
import RunAnywhere

/// Which model of each kind the server has loaded, and who is using it.
///
/// An SDK instance holds one model per capability. A request names its model: the host loads
/// it on first use, and when a request names another model of the same kind, waits until the
/// requests using the loaded one are done, then switches. It also bounds how many requests of
/// a kind may be admitted at once (running plus queued): beyond that a request is refused at
/// once with 429 rather than waiting without limit.
actor ModelHost {
    private let sdk: RunAnywhereSDK
    private let configuration: OpenAIServerConfiguration
    private var loaded: [ModelCategory: String] = [:]
    private var loading: Set<ModelCategory> = []
    /// Requests admitted per kind (holding or waiting for their model).
    private var admitted: [ModelCategory: Int] = [:]
    /// Requests holding the loaded model, per kind.
    private var holding: [ModelCategory: Int] = [:]
    private var waiters: [ModelCategory: [CheckedContinuation<Void, Never>]] = [:]
    /// How long each kind's model stays loaded once idle (Ollama's `keep_alive`); absent: until
    /// another model of its kind is asked for.
    private var keepAlive: [ModelCategory: KeepAlive] = [:]
    /// When each kind's idle model unloads, when it is set to.
    private var expiresAt: [ModelCategory: Date] = [:]
    /// Bumped by every acquire, so an expiry scheduled before it does nothing.
    private var expiryGeneration: [ModelCategory: Int] = [:]

    /// How long a model stays loaded after its last request.
    enum KeepAlive: Sendable, Equatable {
        /// Until another model of its kind is asked for (or `keep_alive: -1`).
        case forever
        /// This long after the last request ends; zero unloads it at once.
        case duration(Duration)
    }

    init(sdk: RunAnywhereSDK, configuration: OpenAIServerConfiguration) {
        self.sdk = sdk
        self.configuration = configuration
    }

    /// The kinds of model the server serves.
    static let servedCategories: [ModelCategory] = [.llm, .vision, .embedding, .speechRecognition, .speechSynthesis]

    /// The models the server offers: those named in the configuration, or every registered
    /// model of a served kind.
    nonisolated func offeredModels() -> [ModelInfo] {
        let all = (try? sdk.availableModels()) ?? []
        let served = all.filter { Self.servedCategories.contains($0.category) }
        guard !configuration.models.isEmpty else { return served }
        return served.filter { configuration.models.contains($0.id) }
    }

    /// The offered model `id`, checked to be of `category`: 404 when unknown, 400 when of
    /// another kind.
    nonisolated func model(
        _ id: String,
        for category: ModelCategory,
        param: String = "model"
    ) throws(OpenAIError)
        -> ModelInfo
    {
        try model(id, forAnyOf: [category], param: param)
    }

    /// The offered model `id`, checked to be of one of `categories` (the first names the kind
    /// in the error): 404 when unknown, 400 when of another kind.
    nonisolated func model(
        _ id: String,
        forAnyOf categories: [ModelCategory],
        param: String = "model"
    ) throws(OpenAIError)
        -> ModelInfo
    {
        guard let model = offeredModels().first(where: { $0.id == id }) else {
            throw OpenAIError(
                .notFound,
                "The model '\(id)' does not exist",
                param: param,
                code: "model_not_found"
            )
        }
        guard categories.contains(model.category) else {
            let wanted = categories.map(\.displayName).joined(separator: " or ")
            throw OpenAIError.invalid(
                "'\(id)' is a \(model.category.displayName) model; this endpoint needs a \(wanted) model",
                param: param,
                code: "model_not_supported"
            )
        }
        return model
    }

    /// Ids of the loaded models.
    var loadedModelIds: [String] { loaded.values.sorted() }

    /// Requests of `category` admitted and not yet released.
    func admittedCount(_ category: ModelCategory) -> Int { admitted[category, default: 0] }

    /// Most requests of `category` admitted at once: the slots (for language models) or one
    /// running request, plus the queue.
    func capacity(_ category: ModelCategory) -> Int {
        (category == .llm ? configuration.slots : 1) + configuration.queueSize
    }

    /// Admits a request for `model` and makes sure it is loaded; pair with ``release(_:)``.
    ///
    /// - Throws: 429 when the kind's capacity is taken, or the load's error.
    func acquire(_ model: ModelInfo) async throws(OpenAIError) {
        let category = model.category
        guard admitted[category, default: 0] < capacity(category) else {
            throw OpenAIError(
                .tooManyRequests,
                "The server is at capacity for \(category.displayName) requests; retry shortly",
                code: "rate_limit_exceeded",
                retryAfter: 1
            )
        }
        admitted[category, default: 0] += 1
        expiryGeneration[category, default: 0] += 1
        expiresAt[category] = nil
        while true {
            if loaded[category] == model.id, !loading.contains(category) {
                holding[category, default: 0] += 1
                return
            }
            if loading.contains(category) || holding[category, default: 0] > 0 {
                await wait(category)
                continue
            }
            loading.insert(category)
            do {
                try await load(model)
                loaded[category] = model.id
                loading.remove(category)
                wake(category)
            } catch {
                loading.remove(category)
                loaded[category] = nil
                admitted[category, default: 1] -= 1
                wake(category)
                throw OpenAIError(error)
            }
        }
    }

    /// Ends a request admitted by ``acquire(_:)``; an idle model with a keep-alive duration
    /// gets its unload scheduled.
    func release(_ category: ModelCategory) {
        admitted[category, default: 1] -= 1
        holding[category, default: 1] -= 1
        wake(category)
        guard admitted[category, default: 0] == 0, case .duration(let duration) = keepAlive[category],
            duration > .zero
        else { return }
        let generation = expiryGeneration[category, default: 0]
        expiresAt[category] = Date(timeIntervalSinceNow: duration.milliseconds / 1000)
        Task { [weak self] in
            try? await Task.sleep(for: duration)
            await self?.expire(category, generation: generation)
        }
    }

    /// Sets how long `category`'s model stays loaded once idle, from the next release on.
    func setKeepAlive(_ value: KeepAlive, for category: ModelCategory) {
        keepAlive[category] = value == .forever ? nil : value
    }

    /// When `category`'s idle model unloads; `nil` when it stays.
    func expiry(of category: ModelCategory) -> Date? { expiresAt[category] }

    /// Unloads `category`'s model now unless a request holds or waits for it (`keep_alive: 0`).
    ///
    /// - Returns: Whether a model was unloaded.
    @discardableResult
    func unloadIfIdle(_ category: ModelCategory) async -> Bool {
        guard admitted[category, default: 0] == 0, !loading.contains(category), loaded[category] != nil else {
            return false
        }
        loaded[category] = nil
        expiresAt[category] = nil
        loading.insert(category)  // a request arriving meanwhile waits for the unload
        switch category {
        case .llm: try? await sdk.unloadModel()
        case .vision: try? await sdk.unloadVLMModel()
        case .embedding: try? await sdk.unloadEmbeddingModel()
        default: break
        }
        loading.remove(category)
        wake(category)
        return true
    }

    private func expire(_ category: ModelCategory, generation: Int) async {
        guard expiryGeneration[category, default: 0] == generation else { return }
        await unloadIfIdle(category)
    }

    /// Loads every offered model that is the only one of its kind, or the first of each kind.
    func preload() async throws(OpenAIError) {
        for category in Self.servedCategories {
            guard let model = offeredModels().first(where: { $0.category == category }) else { continue }
            try await acquire(model)
            release(category)
        }
    }

    private func load(_ model: ModelInfo) async throws(SDKException) {
        switch model.category {
        case .llm:
            try await sdk.loadModel(
                model.id,
                contextLength: configuration.contextLength,
                threads: configuration.threads,
                slots: configuration.slots
            )
        case .vision:
            try await sdk.loadVLMModel(
                model.id,
                contextLength: configuration.contextLength,
                threads: configuration.threads
            )
        case .embedding:
            try await sdk.loadEmbeddingModel(model.id)
        case .speechRecognition:
            try await sdk.loadSTTModel(model.id)
        case .speechSynthesis:
            try await sdk.loadTTSModel(model.id)
        default:
            throw SDKException(.invalidInput, "The server does not serve \(model.category.displayName) models")
        }
    }

    private func wait(_ category: ModelCategory) async {
        await withCheckedContinuation { waiters[category, default: []].append($0) }
    }

    private func wake(_ category: ModelCategory) {
        let waiting = waiters.removeValue(forKey: category) ?? []
        for waiter in waiting { waiter.resume() }
    }
}

extension ModelCategory {
    /// The kind of model, as error messages name it.
    var displayName: String {
        switch self {
        case .llm: "language"
        case .embedding: "embedding"
        case .speechRecognition: "speech-to-text"
        case .speechSynthesis: "text-to-speech"
        case .voiceActivityDetection: "voice-activity"
        case .vision: "vision-language"
        case .speakerEmbedding: "speaker-embedding"
        case .loraAdapter: "LoRA adapter"
        }
    }

    /// What the server does with a model of this kind, as `GET /v1/models` lists it.
    var servedCapabilities: [String] {
        switch self {
        case .llm: ["chat", "completions"]
        case .vision: ["chat", "vision"]
        case .embedding: ["embeddings"]
        case .speechRecognition: ["transcription"]
        case .speechSynthesis: ["speech"]
        case .voiceActivityDetection, .speakerEmbedding, .loraAdapter: []
        }
    }
}
