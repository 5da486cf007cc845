@_spi(Backend) import RunAnywhere
import RunAnywhereSherpa

/// The sherpa-onnx backend (Piper voices, Silero VAD) as a plugin: `scripts/build_plugins.sh` links this with the backend into
/// `libRunAnywhereSherpaPlugin.so`, the core's symbols left for the host.
@_cdecl("runanywhere_plugin_entry")
public func runanywherePluginEntry(_ registrar: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    PluginEntry.handle(
        registrar,
        name: SherpaModule().name,
        frameworks: [InferenceFramework.sherpaOnnx.rawValue],
        provides: []
    ) { SherpaModule() }
}
