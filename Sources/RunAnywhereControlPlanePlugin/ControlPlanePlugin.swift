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
/// A host configures it through the environment: `RUNANYWHERE_CONTROL_PLANE_TIMEOUT`, the
/// seconds one request may take (10 by default; the CLI checks the value before it starts).
@_cdecl("runanywhere_plugin_entry")
public func runanywherePluginEntry(_ registrar: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    PluginEntry.handle(registrar, name: ControlPlaneModule().name, provides: ["control-plane"]) {
        let seconds = ProcessInfo.processInfo.environment["RUNANYWHERE_CONTROL_PLANE_TIMEOUT"].flatMap(Double.init)
        guard let seconds, seconds.isFinite, seconds > 0, seconds <= 3600 else { return ControlPlaneModule() }
        return ControlPlaneModule(requestTimeout: .milliseconds(Int(seconds * 1000)))
    }
}
