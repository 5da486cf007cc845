@_spi(Backend) import RunAnywhere
import RunAnywhereLlamaCPP

/// The llama.cpp backend (language, vision-language and embedding models) as a plugin: `scripts/build_plugins.sh` links this with the backend into
/// `libRunAnywhereLlamaCPPPlugin.so`, the core's symbols left for the host.
@_cdecl("runanywhere_plugin_entry")
public func runanywherePluginEntry(_ registrar: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    PluginEntry.handle(
        registrar,
        name: LlamaCPPModule().name,
        frameworks: [InferenceFramework.llamaCpp.rawValue],
        provides: [],
        inspects: [InferenceFramework.llamaCpp.rawValue]
    ) { LlamaCPPModule() }
}
