import Synchronization

/// A backend's offer to serve some models of one capability.
@_spi(Backend) public struct ServiceProvider<Factory: Sendable>: Sendable {
    /// The backend's name, e.g. `llama.cpp`.
    public let name: String
    /// Higher wins when several providers can handle a model.
    public let priority: Int
    /// Whether this provider can run the model.
    public let canHandle: @Sendable (ModelInfo) -> Bool
    /// Loads the model.
    public let factory: Factory
    /// The module that registered it, when a plugin's module did (see ``PluginLoader``).
    var module: String?
}

/// The providers of one capability, best first.
final class ProviderList<Factory: Sendable>: Sendable {
    private let capability: String
    private let providers = Mutex<[ServiceProvider<Factory>]>([])
    init(capability: String) {
        self.capability = capability
    }

    func add(_ provider: ServiceProvider<Factory>) {
        var provider = provider
        provider.module = ServiceRegistry.registeringModule
        providers.withLock { providers in
            providers.append(provider)
            // Stable sort keeps registration order among equal priorities.
            providers = providers.enumerated()
                .sorted { ($0.element.priority, -$0.offset) > ($1.element.priority, -$1.offset) }
                .map(\.element)
        }
    }

    var names: [String] { providers.withLock { $0.map(\.name) } }

    /// Drops the providers `module` registered.
    func remove(module: String) {
        providers.withLock { $0.removeAll { $0.module == module } }
    }

    /// The provider with the highest priority, for capabilities that take no model.
    var best: ServiceProvider<Factory>? { providers.withLock { $0.first } }

    /// The provider that runs `model`.
    func provider(for model: ModelInfo) throws(SDKException) -> ServiceProvider<Factory> {
        let providers = providers.withLock { $0 }
        guard let provider = providers.first(where: { $0.canHandle(model) }) else {
            let known = providers.map(\.name)
            throw SDKException(
                .noBackendForModel,
                "No registered \(capability) backend can run model '\(model.id)' (\(model.framework.rawValue), \(model.format.rawValue))",
                recovery: known.isEmpty
                    ? "Register a backend module first: RunAnywhereSDK(home:modules:), or RunAnywhere.register(_:)"
                    : "Registered \(capability) backends: \(known.joined(separator: ", "))"
            )
        }
        return provider
    }
}
