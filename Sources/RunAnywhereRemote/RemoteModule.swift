@_spi(Backend) import RunAnywhere

/// The backend for models on OpenAI-compatible servers: language models (chat,
/// completions, structured output, tools), embeddings and speech recognition.
///
/// Register it, then register remote models with
/// `RunAnywhereSDK.registerRemoteModel(id:baseURL:remoteModelName:apiKey:apiKeySecret:category:timeoutSeconds:)`:
///
/// ```swift
/// import RunAnywhere
/// import RunAnywhereRemote
///
/// let sdk = try RunAnywhereSDK(home: home, modules: [RemoteModule()])
/// try sdk.registerRemoteModel(id: "big", baseURL: URL(string: "http://gpu-box:8000/v1")!, remoteModelName: "qwen2.5-72b")
/// try await sdk.loadModel("big")
/// print(try await sdk.generate("Hello").text)
/// ```
public struct RemoteModule: BackendModule {
    /// Creates the module.
    public init() {}

    /// `remote`.
    public var name: String { "remote" }

    /// Offers LLM, embeddings and STT services for models of framework `InferenceFramework.remote`.
    public func register(with registry: ServiceRegistry) {
        let isRemote: @Sendable (ModelInfo) -> Bool = { $0.framework == .remote && $0.remote != nil }
        registry.registerLLM(name: "remote", priority: 100, canHandle: isRemote) { model, configuration in
            try await RemoteLLMService.load(model, configuration: configuration)
        }
        registry.registerEmbeddings(name: "remote", priority: 100, canHandle: isRemote) { model, _ in
            try await RemoteEmbeddingsService.load(model)
        }
        registry.registerSTT(name: "remote", priority: 100, canHandle: isRemote) { model in
            try await RemoteSTTService.load(model)
        }
    }

    /// The HTTP client the module speaks with.
    public func engineInfo() -> EngineInfo {
        EngineInfo(
            name: "OpenAI-compatible servers",
            version: nil,
            available: true,
            details: [
                "client": "async-http-client",
                "endpoints": "chat/completions completions embeddings audio/transcriptions",
            ],
            runsOnDevice: false
        )
    }
}

extension RemoteModule {
    /// Registers the module with the shared instance.
    public static func register() {
        RunAnywhere.register(RemoteModule())
    }
}
