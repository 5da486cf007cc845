@_spi(Backend) import RunAnywhere
import RunAnywhereResemblyzer

/// The Resemblyzer speaker encoder as a plugin: `scripts/build_plugins.sh` links this with the backend into
/// `libRunAnywhereResemblyzerPlugin.so`, the core's symbols left for the host.
@_cdecl("runanywhere_plugin_entry")
public func runanywherePluginEntry(_ registrar: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    PluginEntry.handle(
        registrar,
        name: ResemblyzerModule().name,
        frameworks: [Resemblyzer.framework.rawValue],
        provides: []
    ) { ResemblyzerModule() }
}
