/// A plugin that brings one inference engine to the SDK.
///
/// A module registers service factories with the ``ServiceRegistry`` and describes its
/// engine for diagnostics. Apps add modules with ``RunAnywhere/register(_:)`` before or
/// after ``RunAnywhere/initialize(apiKey:baseURL:environment:)``.
public protocol BackendModule: Sendable {
    /// Unique name, e.g. `llamacpp`.
    var name: String { get }
    /// Registers this module's factories.
    func register(with registry: ServiceRegistry)
    /// What the module knows about its engine, for `runanywhere doctor`.
    func engineInfo() -> EngineInfo
}

/// A native engine as a module sees it.
public struct EngineInfo: Sendable, Codable, Equatable {
    /// Engine name, e.g. `llama.cpp`.
    public var name: String
    /// Version string reported by the engine, when it has one.
    public var version: String?
    /// Whether the engine's library is loaded and working.
    public var available: Bool
    /// Free-form details (CPU features, library paths).
    public var details: [String: String]

    public init(name: String, version: String?, available: Bool, details: [String: String] = [:]) {
        self.name = name
        self.version = version
        self.available = available
        self.details = details
    }
}
