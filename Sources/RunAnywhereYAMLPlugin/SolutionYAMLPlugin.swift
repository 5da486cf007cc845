@_spi(Backend) import RunAnywhere
import RunAnywhereYAML

/// The solutions' YAML reader as a plugin: `scripts/build_plugins.sh` links this with the
/// module and Yams into `libRunAnywhereYAMLPlugin.so`, the core's symbols left for the host,
/// which opens it when a solution's YAML is first read.
@_cdecl("runanywhere_plugin_entry")
public func runanywherePluginEntry(_ registrar: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    PluginEntry.handle(registrar, name: SolutionYAMLModule().name, provides: ["solution-parser"]) {
        SolutionYAMLModule()
    }
}
