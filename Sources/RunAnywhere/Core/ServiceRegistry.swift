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
    private let llmProviders = Mutex<[ServiceProvider<LLMServiceFactory>]>([])

    public init() {}

    /// Offers LLM services.
    public func registerLLM(name: String, priority: Int = 100,
                            canHandle: @escaping @Sendable (ModelInfo) -> Bool,
                            factory: @escaping LLMServiceFactory) {
        let provider = ServiceProvider(name: name, priority: priority, canHandle: canHandle, factory: factory)
        llmProviders.withLock { providers in
            providers.append(provider)
            // Stable sort keeps registration order among equal priorities.
            providers = providers.enumerated()
                .sorted { ($0.element.priority, -$0.offset) > ($1.element.priority, -$1.offset) }
                .map(\.element)
        }
    }

    /// Names of the LLM providers, best first.
    public var llmProviderNames: [String] { llmProviders.withLock { $0.map(\.name) } }

    /// The provider that should run `model`.
    public func llmProvider(for model: ModelInfo) throws(SDKException) -> ServiceProvider<LLMServiceFactory> {
        let providers = llmProviders.withLock { $0 }
        guard let provider = providers.first(where: { $0.canHandle(model) }) else {
            let known = providers.map(\.name)
            throw SDKException(.noBackendForModel,
                               "No registered backend can run model '\(model.id)' (\(model.framework.rawValue), \(model.format.rawValue))",
                               recovery: known.isEmpty
                                   ? "Register a backend first, e.g. LlamaCPP.register()"
                                   : "Registered LLM backends: \(known.joined(separator: ", "))")
        }
        return provider
    }
}
