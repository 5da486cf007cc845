@_spi(Backend) import RunAnywhere
import RunAnywhereSystemVoice

/// The system voice (espeak-ng) as a plugin: `scripts/build_plugins.sh` links this with the backend into
/// `libRunAnywhereSystemVoicePlugin.so`, the core's symbols left for the host.
@_cdecl("runanywhere_plugin_entry")
public func runanywherePluginEntry(_ registrar: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    PluginEntry.handle(
        registrar,
        name: SystemVoiceModule().name,
        frameworks: [InferenceFramework.systemVoice.rawValue],
        provides: ["system-tts"]
    ) { SystemVoiceModule() }
}
