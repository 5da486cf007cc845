/// A backend plugin: a shared library loaded at run time, or a module linked into the app.
public struct PluginInfo: Sendable, Codable, Equatable {
    /// The backend module's name, e.g. `whispercpp`: what ``PluginLoader/unload(name:)`` takes.
    public var name: String
    /// The library's path; empty for a module linked into the app.
    public var path: String
    /// The plugin API version the library was built for.
    public var apiVersion: UInt32
    /// The Swift compiler the library was built with, e.g. `swift-6.3`.
    public var toolchain: String
    /// The RunAnywhere version the library was built against.
    public var sdkVersion: String
    /// Whether the library stays mapped after ``PluginLoader/unload(name:)``: always, for a
    /// Swift plugin, because the Swift runtime keeps the type metadata it registered from it.
    public var staysMapped: Bool
    /// The model frameworks its services run, e.g. `["llamacpp"]`.
    public var frameworks: [String]
    /// The services it offers without a model: `system-tts` (the system voice), `wake-word`
    /// (a keyword spotter).
    public var provides: [String]
    /// The frameworks whose model files its inspector reads (at import, download and
    /// discovery), e.g. `["llamacpp"]`: a closed plugin is opened for those, and only those.
    public var inspects: [String]
    /// Whether the library is open and its module registered. A plugin registered with
    /// ``PluginLoader/Opening/onFirstUse`` stays closed, its engine unmapped, until a model of
    /// one of its ``frameworks`` is loaded or one of the services it ``provides`` is needed.
    public var isOpen: Bool

    /// Creates a description.
    public init(
        name: String,
        path: String,
        apiVersion: UInt32,
        toolchain: String,
        sdkVersion: String,
        staysMapped: Bool,
        frameworks: [String] = [],
        provides: [String] = [],
        inspects: [String] = [],
        isOpen: Bool = true
    ) {
        self.name = name
        self.path = path
        self.apiVersion = apiVersion
        self.toolchain = toolchain
        self.sdkVersion = sdkVersion
        self.staysMapped = staysMapped
        self.frameworks = frameworks
        self.provides = provides
        self.inspects = inspects
        self.isOpen = isOpen
    }
}
