/// A plugin that brings one inference engine to the SDK.
///
/// A module registers service factories with the ``ServiceRegistry`` and describes its
/// engine for diagnostics. Apps pass modules to
/// ``RunAnywhereSDK/init(home:environment:apiKey:baseURL:modules:)`` or add them with
/// ``RunAnywhereSDK/register(_:)``; for the shared instance, ``RunAnywhere/register(_:)``
/// works before or after ``RunAnywhere/initialize(apiKey:baseURL:environment:storageDirectory:)``.
/// The engine backends that ship with the SDK also offer a one-line `register()` for the
/// shared instance, e.g. `LlamaCPP.register()`.
public protocol BackendModule: Sendable {
    /// Unique name, e.g. `llamacpp`.
    var name: String { get }
    /// Registers this module's factories.
    func register(with registry: ServiceRegistry)
    /// What the module knows about its engine, for `runanywhere doctor`.
    func engineInfo() -> EngineInfo
    /// The frameworks whose models the module runs; by default the one named like the module.
    var frameworks: [InferenceFramework] { get }
}

extension BackendModule {
    /// The framework named like the module (`llamacpp` runs `.llamaCpp` models).
    public var frameworks: [InferenceFramework] { [InferenceFramework(name)] }
}
