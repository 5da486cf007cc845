@_spi(Backend) import RunAnywhere
import RunAnywhereWhisperCPP

/// The whisper.cpp backend as a plugin: `scripts/build_plugins.sh` links this with the backend into
/// `libRunAnywhereWhisperCPPPlugin.so`, the core's symbols left for the host.
@_cdecl("runanywhere_plugin_entry")
public func runanywherePluginEntry(_ registrar: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    PluginEntry.handle(
        registrar,
        name: WhisperCPPModule().name,
        frameworks: [InferenceFramework.whisperCpp.rawValue],
        provides: []
    ) { WhisperCPPModule() }
}
