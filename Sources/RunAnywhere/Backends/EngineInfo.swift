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
    /// Whether this build of the engine can run models on a GPU (and found one to use).
    public var gpuOffload: Bool
    /// Whether the engine runs models on this device; false for a client of remote servers.
    public var runsOnDevice: Bool

    /// Creates a description.
    public init(
        name: String,
        version: String?,
        available: Bool,
        details: [String: String] = [:],
        gpuOffload: Bool = false,
        runsOnDevice: Bool = true
    ) {
        self.name = name
        self.version = version
        self.available = available
        self.details = details
        self.gpuOffload = gpuOffload
        self.runsOnDevice = runsOnDevice
    }
}
