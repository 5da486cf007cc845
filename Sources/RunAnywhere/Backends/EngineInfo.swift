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

    /// Creates a description.
    public init(name: String, version: String?, available: Bool, details: [String: String] = [:]) {
        self.name = name
        self.version = version
        self.available = available
        self.details = details
    }
}
