@_spi(Backend) import RunAnywhere
import RunAnywhereRemote

/// The remote engines as a plugin: `scripts/build_plugins.sh` links this with the module,
/// async-http-client and SwiftNIO into `libRunAnywhereRemotePlugin.so`, the core's symbols left
/// for the host, which opens it when a remote model is first loaded or a request is first routed
/// to a server. The control plane's plugin takes its HTTP client from this one: one NIO.
@_cdecl("runanywhere_plugin_entry")
public func runanywherePluginEntry(_ registrar: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    PluginEntry.handle(registrar, name: RemoteModule().name, frameworks: [InferenceFramework.remote.rawValue]) {
        RemoteModule()
    }
}
