/// A plugin loaded from a shared library (see ``PluginLoader``).
public struct PluginInfo: Sendable, Codable, Equatable {
    /// The plugin's name, e.g. `whispercpp-plugin`: what ``PluginLoader/unload(name:)`` takes.
    public var name: String
    /// The library's path, symbolic links resolved.
    public var path: String
    /// The plugin ABI version it was built for (`RAC_PLUGIN_API_VERSION` of `rac_plugin.h`).
    public var apiVersion: UInt32
    /// Its engine and version, as the plugin describes it, e.g. `whisper.cpp 1.5.1`.
    public var engine: String?
    /// The model frameworks it serves, e.g. `["whispercpp"]`.
    public var frameworks: [String]
    /// The capabilities it offers: `stt`.
    public var capabilities: [String]
    /// Its priority among the backends that can run a model (the SDK's own have 100).
    public var priority: Int
    /// Whether the library stays mapped after ``PluginLoader/unload(name:)``: always, since
    /// a plugin written in Swift leaves type metadata the Swift runtime keeps pointers to.
    public var staysMapped: Bool

    /// Creates a description.
    public init(
        name: String,
        path: String,
        apiVersion: UInt32,
        engine: String? = nil,
        frameworks: [String] = [],
        capabilities: [String] = [],
        priority: Int = 100,
        staysMapped: Bool = true
    ) {
        self.name = name
        self.path = path
        self.apiVersion = apiVersion
        self.engine = engine
        self.frameworks = frameworks
        self.capabilities = capabilities
        self.priority = priority
        self.staysMapped = staysMapped
    }
}
