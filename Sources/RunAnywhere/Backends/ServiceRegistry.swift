import Synchronization

/// Creates a loaded ``LLMService`` for a model.
public typealias LLMServiceFactory = @Sendable (ModelInfo, LLMLoadConfiguration) async throws -> any LLMService

/// A backend's offer to serve some models of one capability.
public struct ServiceProvider<Factory: Sendable>: Sendable {
    /// The backend's name, e.g. `llama.cpp`.
    public let name: String
    /// Higher wins when several providers can handle a model.
    public let priority: Int
    /// Whether this provider can run the model.
    public let canHandle: @Sendable (ModelInfo) -> Bool
    /// Loads the model.
    public let factory: Factory
}

/// The providers of one capability, best first.
final class ProviderList<Factory: Sendable>: Sendable {
    private let capability: String
    private let providers = Mutex<[ServiceProvider<Factory>]>([])

    init(capability: String) {
        self.capability = capability
    }

    func add(_ provider: ServiceProvider<Factory>) {
        providers.withLock { providers in
            providers.append(provider)
            // Stable sort keeps registration order among equal priorities.
            providers = providers.enumerated()
                .sorted { ($0.element.priority, -$0.offset) > ($1.element.priority, -$1.offset) }
                .map(\.element)
        }
    }

    var names: [String] { providers.withLock { $0.map(\.name) } }

    func provider(for model: ModelInfo) throws(SDKException) -> ServiceProvider<Factory> {
        let providers = providers.withLock { $0 }
        guard let provider = providers.first(where: { $0.canHandle(model) }) else {
            let known = providers.map(\.name)
            throw SDKException(.noBackendForModel,
                               "No registered \(capability) backend can run model '\(model.id)' (\(model.framework.rawValue), \(model.format.rawValue))",
                               recovery: known.isEmpty
                                   ? "Register a backend module first (see RunAnywhere.register(_:))"
                                   : "Registered \(capability) backends: \(known.joined(separator: ", "))")
        }
        return provider
    }
}

/// Where backends offer their services and capabilities find them.
///
/// For each capability the provider with the highest priority whose `canHandle` accepts
/// the model wins; ties go to the provider registered first.
///
/// ```swift
/// registry.registerLLM(name: "my-engine", priority: 200, canHandle: { $0.format == .gguf }) { model, config in
///     try await MyEngine(model: model, config: config)
/// }
/// ```
public final class ServiceRegistry: Sendable {
    let llm = ProviderList<LLMServiceFactory>(capability: "LLM")
    let stt = ProviderList<STTServiceFactory>(capability: "STT")
    let tts = ProviderList<TTSServiceFactory>(capability: "TTS")
    let vad = ProviderList<VADServiceFactory>(capability: "VAD")
    private let systemTTS = Mutex<(name: String, factory: SystemTTSFactory)?>(nil)

    public init() {}

    /// Offers LLM services.
    public func registerLLM(name: String, priority: Int = 100,
                            canHandle: @escaping @Sendable (ModelInfo) -> Bool,
                            factory: @escaping LLMServiceFactory) {
        llm.add(ServiceProvider(name: name, priority: priority, canHandle: canHandle, factory: factory))
    }

    /// Offers speech recognition.
    public func registerSTT(name: String, priority: Int = 100,
                            canHandle: @escaping @Sendable (ModelInfo) -> Bool,
                            factory: @escaping STTServiceFactory) {
        stt.add(ServiceProvider(name: name, priority: priority, canHandle: canHandle, factory: factory))
    }

    /// Offers voice models for speech synthesis.
    public func registerTTS(name: String, priority: Int = 100,
                            canHandle: @escaping @Sendable (ModelInfo) -> Bool,
                            factory: @escaping TTSServiceFactory) {
        tts.add(ServiceProvider(name: name, priority: priority, canHandle: canHandle, factory: factory))
    }

    /// Offers voice-activity models.
    public func registerVAD(name: String, priority: Int = 100,
                            canHandle: @escaping @Sendable (ModelInfo) -> Bool,
                            factory: @escaping VADServiceFactory) {
        vad.add(ServiceProvider(name: name, priority: priority, canHandle: canHandle, factory: factory))
    }

    /// Offers the system voice, used when no voice model is loaded. The last registration wins.
    public func registerSystemTTS(name: String, factory: @escaping SystemTTSFactory) {
        systemTTS.withLock { $0 = (name, factory) }
    }

    /// Names of the LLM providers, best first.
    public var llmProviderNames: [String] { llm.names }

    /// The provider that should run `model`.
    public func llmProvider(for model: ModelInfo) throws(SDKException) -> ServiceProvider<LLMServiceFactory> {
        try llm.provider(for: model)
    }

    /// The system voice's factory, if a module offers one.
    var systemTTSFactory: (name: String, factory: SystemTTSFactory)? { systemTTS.withLock { $0 } }
}
