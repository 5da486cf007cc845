#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// How this instance routes models between this device and remote servers; takes
    /// effect from the next request.
    ///
    /// ```swift
    /// sdk.routing = RoutingConfiguration(policy: .preferLocal, memoryBudgetBytes: 2 << 30)
    /// ```
    public var routing: RoutingConfiguration {
        get { router.configuration }
        set { router.configuration = newValue }
    }

    /// The routing policy alone (see ``routing``).
    public var routingPolicy: RoutingPolicy {
        get { router.configuration.policy }
        set { router.configuration.policy = newValue }
    }

    /// Registers a model served by an OpenAI-compatible server (vLLM, llama-server,
    /// Ollama, `runanywhere serve`), to load and use like any model. The
    /// `RunAnywhereRemote` module must be registered to run it.
    ///
    /// When `id` names a model that is already registered (a local one), the endpoint is
    /// added to it and ``routingPolicy`` chooses the side of each request; otherwise a
    /// remote-only entry is created.
    ///
    /// ```swift
    /// try sdk.registerRemoteModel(
    ///     id: "llama-70b", baseURL: URL(string: "http://gpu-box:8000/v1")!,
    ///     remoteModelName: "meta-llama/Llama-3.3-70B-Instruct", apiKey: ProcessInfo.processInfo.environment["KEY"])
    /// try await sdk.loadModel("llama-70b")
    /// ```
    ///
    /// - Parameters:
    ///   - id: The model's id here: a new one, or a registered model's to give it a remote side.
    ///   - baseURL: The server's OpenAI base URL, up to and including `/v1`.
    ///   - remoteModelName: The model's name on the server.
    ///   - apiKey: Stored in the secure store under `apiKeySecret` (default
    ///     `remote-<id>-api-key`, deleted with the model); the registry keeps only the secret's name.
    ///   - apiKeySecret: The secure store's name for the key; alone, names a key stored before.
    ///   - category: `.llm` (the default), `.embedding` or `.stt`; an existing model keeps its own.
    ///   - timeoutSeconds: Longest wait for a whole answer, or between two streamed chunks.
    /// - Throws: `.invalidBaseURL` for a URL that is not http(s), `.invalidModelId`,
    ///   `.invalidInput` (category, model name, timeout), `.invalidAPIKey` for an empty key.
    ///   On failure nothing is stored.
    @discardableResult
    public func registerRemoteModel(
        id: String,
        baseURL: URL,
        remoteModelName: String,
        apiKey: String? = nil,
        apiKeySecret: String? = nil,
        category: ModelCategory? = nil,
        timeoutSeconds: Double = 60
    ) throws(SDKException) -> ModelInfo {
        try ModelInfo.validate(id: id)
        if let category, ![ModelCategory.llm, .embedding, .speechRecognition].contains(category) {
            throw SDKException(
                .invalidInput,
                "A remote model must be an llm, embedding or stt model, not \(category.rawValue)"
            )
        }
        if let apiKey, apiKey.trimmed().isEmpty {
            throw SDKException(.invalidAPIKey, "The API key of remote model '\(id)' is empty")
        }
        let secret = apiKey == nil ? apiKeySecret : (apiKeySecret ?? Self.remoteAPIKeySecret(for: id))
        let endpoint = RemoteEndpoint(
            baseURL: baseURL,
            remoteModelName: remoteModelName,
            apiKeySecret: secret,
            timeoutSeconds: timeoutSeconds
        )
        try endpoint.validate()
        let registry = try runtime().registry
        var model: ModelInfo
        var replace = false
        if var existing = try? registry.get(id) {
            guard [ModelCategory.llm, .embedding, .speechRecognition].contains(existing.category),
                category == nil || category == existing.category
            else {
                throw SDKException(
                    .invalidInput,
                    "Model '\(id)' is a \(existing.category.rawValue) model"
                        + (category.map { ", not \($0.rawValue)" } ?? ", which cannot run remotely")
                )
            }
            existing.remote = endpoint
            model = existing
            replace = true
        } else {
            model = ModelInfo(
                id: id,
                name: remoteModelName,
                category: category ?? .llm,
                format: .unknown,
                framework: .remote,
                remote: endpoint
            )
        }
        // The key goes first, so the entry never names a secret that is not there; a failed
        // registration puts the previous key back.
        var restoreKey: (() -> Void)?
        if let apiKey, let secret {
            let store = try secureStore()
            let previous = try store.string(for: secret)
            try store.set(apiKey, for: secret)
            restoreKey = {
                if let previous { try? store.set(previous, for: secret) } else { _ = try? store.delete(secret) }
            }
        }
        do {
            try registry.register(model, replace: replace)
        } catch {
            restoreKey?()
            throw error
        }
        events.publish(.modelRegistered(modelId: id))
        model = try registry.get(id)
        return model
    }
}

extension RunAnywhereSDK {
    /// The secure store's name for the API key of remote model `id` when the caller names none;
    /// removing the model deletes it.
    static func remoteAPIKeySecret(for id: String) -> String { "remote-\(id)-api-key" }
}

extension RunAnywhere {
    /// How the shared instance routes models between this device and remote servers.
    ///
    /// Reads and writes ``RunAnywhereSDK/routing`` on the shared instance; before
    /// initialization reads give the default and writes are ignored.
    public static var routing: RoutingConfiguration {
        get { (try? sdk().routing) ?? RoutingConfiguration() }
        set { (try? sdk())?.routing = newValue }
    }

    /// Registers a model served by an OpenAI-compatible server.
    ///
    /// Calls ``RunAnywhereSDK/registerRemoteModel(id:baseURL:remoteModelName:apiKey:apiKeySecret:category:timeoutSeconds:)``
    /// on the shared instance.
    @discardableResult
    public static func registerRemoteModel(
        id: String,
        baseURL: URL,
        remoteModelName: String,
        apiKey: String? = nil,
        apiKeySecret: String? = nil,
        category: ModelCategory? = nil,
        timeoutSeconds: Double = 60
    ) throws(SDKException) -> ModelInfo {
        try sdk().registerRemoteModel(
            id: id,
            baseURL: baseURL,
            remoteModelName: remoteModelName,
            apiKey: apiKey,
            apiKeySecret: apiKeySecret,
            category: category,
            timeoutSeconds: timeoutSeconds
        )
    }
}
