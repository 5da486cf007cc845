@_spi(Backend) import RunAnywhere
import RunAnywherePocketSphinx

/// The PocketSphinx keyword spotter as a plugin: `scripts/build_plugins.sh` links this with the backend into
/// `libRunAnywherePocketSphinxPlugin.so`, the core's symbols left for the host.
@_cdecl("runanywhere_plugin_entry")
public func runanywherePluginEntry(_ registrar: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    PluginEntry.handle(registrar, name: PocketSphinxModule().name, frameworks: [], provides: ["wake-word"]) {
        PocketSphinxModule()
    }
}
