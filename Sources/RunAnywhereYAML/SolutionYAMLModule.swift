@_spi(Backend) public import RunAnywhere

/// Solutions written in YAML, read with Yams, every error naming its line.
///
/// Register it like an engine module, before `Solutions.parse(yaml:)` or `Solutions.run(yaml:)`:
///
/// ```swift
/// import RunAnywhere
/// import RunAnywhereYAML
///
/// RunAnywhere.register(SolutionYAMLModule())
/// let config = try RunAnywhere.solutions.parse(yaml: text)
/// ```
///
/// A module of its own so that a program that reads no YAML maps neither Yams nor the full
/// Foundation it needs; the `runanywhere` CLI opens it as a plugin when it first reads one.
/// Solutions built in code (a `SolutionConfig`) need no parser.
public struct SolutionYAMLModule: BackendModule {
    /// The module's name.
    public let name = "yaml"

    /// Creates the module.
    public init() {}

    /// Offers the solution parser.
    public func register(with registry: ServiceRegistry) {
        registry.registerSolutionParser(name: name, parser: SolutionYAMLParser())
    }

    /// What reads the YAML, for `runanywhere doctor`.
    public func engineInfo() -> EngineInfo {
        EngineInfo(
            name: "Yams",
            version: nil,
            available: true,
            details: ["serves": "solutions in YAML"],
            runsOnDevice: false  // it runs no model: no accelerator lists it
        )
    }
}
