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
    private let demand: PluginDemand

    init(capability: String, demand: PluginDemand) {
        self.capability = capability
        self.demand = demand
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

    /// The module whose provider would run `model`, when a plugin's module would.
    func module(serving model: ModelInfo) -> String? {
        providers.withLock { $0 }.first { $0.canHandle(model) }?.module
    }

    /// The provider with the highest priority, for capabilities that take no model; a closed
    /// plugin that provides `need` is opened when none is registered.
    func best(opening need: PluginNeed) -> ServiceProvider<Factory>? {
        if let best = providers.withLock({ $0.first }) { return best }
        return demand.open(for: need) ? providers.withLock { $0.first } : nil
    }

    /// The provider that runs `model`; a closed plugin serving its framework is opened when
    /// no registered provider can.
    func provider(for model: ModelInfo) throws(SDKException) -> ServiceProvider<Factory> {
        if let provider = providers.withLock({ $0 }).first(where: { $0.canHandle(model) }) { return provider }
        let outcome = demand.openReporting(.framework(model.framework))
        let providers = providers.withLock { $0 }
        guard let provider = providers.first(where: { $0.canHandle(model) }) else {
            let known = providers.map(\.name)
            let failed = outcome.failures.isEmpty ? "" : ": " + outcome.failures.joined(separator: "; ")
            throw SDKException(
                .noBackendForModel,
                "No registered \(capability) backend can run model '\(model.id)' (\(model.framework.rawValue), \(model.format.rawValue))\(failed)",
                recovery: known.isEmpty
                    ? "Register a backend module first: RunAnywhereSDK(home:modules:), or RunAnywhere.register(_:)"
                    : "Registered \(capability) backends: \(known.joined(separator: ", "))"
            )
        }
        return provider
    }
}
