@_spi(Backend) import RunAnywhere
import RunAnywhereControlPlane

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The control plane's client as a plugin: `scripts/build_plugins.sh` links this with the
/// module and the OpenAPI runtime into `libRunAnywhereControlPlanePlugin.so`, which takes its
/// HTTP client from the remote engines' plugin. A host opens it when phase 2 of initialization
/// has a base URL and an API key.
///
/// A host configures it through the environment (`ControlPlaneModule(environment:)`); a bad
/// timeout falls back to the default here, since the CLI refuses one before it starts.
@_cdecl("runanywhere_plugin_entry")
public func runanywherePluginEntry(_ registrar: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    PluginEntry.handle(registrar, name: ControlPlaneModule().name, provides: ["control-plane"]) {
        (try? ControlPlaneModule(environment: ProcessInfo.processInfo.environment)) ?? ControlPlaneModule()
    }
}
