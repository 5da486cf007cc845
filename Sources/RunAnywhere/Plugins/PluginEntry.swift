#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The plugin side of loading: what a plugin's one C entry point does.
///
/// A plugin is a shared library that exports `runanywhere_plugin_entry`. The host calls it
/// twice: first with no argument, to read the plugin's description (API version, toolchain,
/// SDK version, module name) as a JSON C string before any Swift value crosses, then, if
/// they match its own, with a ``PluginRegistrar`` to register the module. Write it as:
///
/// ```swift
/// @_spi(Backend) import RunAnywhere
///
/// @_cdecl("runanywhere_plugin_entry")
/// public func runanywherePluginEntry(_ registrar: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
///     PluginEntry.handle(registrar, name: "mybackend", frameworks: ["my-engine"]) { MyBackendModule() }
/// }
/// ```
///
/// ``handle(_:name:frameworks:provides:inspects:module:)`` is emitted into the plugin, so the versions
/// it reports are the ones the plugin was compiled with, not the host's.
///
/// The description names the model frameworks the module serves, the model-less services
/// it provides and the frameworks whose model files it inspects. `scripts/build_plugins.sh` copies it into the library's
/// `.runanywhere_plugin` ELF section, from which a host registers the plugin to be opened
/// only when a model of one of those frameworks is first loaded.
@_spi(Backend) public enum PluginEntry {
    /// The plugin API version: the shape of the entry point and of the backend contract. A
    /// host loads only plugins of its own version.
    @_alwaysEmitIntoClient public static var apiVersion: UInt32 { 1 }

    /// The Swift compiler this code was compiled with, to the minor version.
    @_alwaysEmitIntoClient public static var toolchain: String {
        #if compiler(>=6.5)
        "swift-6.5+"
        #elseif compiler(>=6.4)
        "swift-6.4"
        #elseif compiler(>=6.3)
        "swift-6.3"
        #elseif compiler(>=6.2)
        "swift-6.2"
        #elseif compiler(>=6.1)
        "swift-6.1"
        #else
        "swift-6.0"
        #endif
    }

    /// The RunAnywhere version this code was compiled against. Without library evolution a
    /// plugin must be built against the same core as its host.
    @_alwaysEmitIntoClient public static var sdkVersion: String { "0.1.0" }

    /// The entry point's whole job: describe the plugin, or register its module.
    ///
    /// - Parameters:
    ///   - registrar: Nil to ask for the description; else the host's ``PluginRegistrar``.
    ///   - name: The module's name (its ``BackendModule/name``).
    ///   - frameworks: The model frameworks its services run, e.g. `["llamacpp"]`.
    ///   - provides: The services it offers without a model: `system-tts`, `wake-word`.
    ///   - inspects: The frameworks whose model files its ``ModelFileInspector`` reads at
    ///     import, download and discovery, e.g. `["llamacpp"]` for GGUF headers.
    ///   - module: Makes the module; called only when registering.
    /// - Returns: A JSON C string the host frees: the description, or `{"registered": …}`
    ///   with the plugin's view of the core, or `{"error": …}`.
    @_alwaysEmitIntoClient
    public static func handle(
        _ registrar: UnsafeMutableRawPointer?,
        name: String,
        frameworks: [String] = [],
        provides: [String] = [],
        inspects: [String] = [],
        module: () -> any BackendModule
    ) -> UnsafeMutablePointer<CChar>? {
        var reply: [String: String] = [:]
        if let registrar {
            let host = Unmanaged<PluginRegistrar>.fromOpaque(registrar).takeUnretainedValue()
            // The core this plugin's code is bound to: the host's, or a second copy.
            let seen = PluginRegistrar.coreIdentity
            if seen == host.hostCoreIdentity {
                host.register(module())
                reply["registered"] = name
            } else {
                reply["error"] = "the plugin is bound to a second copy of the RunAnywhere core"
            }
            reply["core_identity"] = String(seen)
        } else {
            reply = [
                "api_version": String(apiVersion), "toolchain": toolchain, "sdk_version": sdkVersion, "name": name,
                "frameworks": frameworks.joined(separator: ","), "provides": provides.joined(separator: ","),
                "inspects": inspects.joined(separator: ","),
            ]
        }
        return strdup(json(reply))
    }

    /// A flat JSON object of strings, as entry points reply and description sections hold.
    ///
    /// Written and read with ``JSONValue`` rather than `JSONSerialization`, whose bridging to
    /// `NSDictionary` made dozens of dynamic casts, each a scan of every protocol conformance
    /// in the process, at every start that reads the plugins' descriptions.
    /// Emitted into each plugin, so a plugin needs nothing from its host that older hosts lack.
    @_alwaysEmitIntoClient
    public static func json(_ object: [String: String]) -> String {
        JSONValue.object(JSONObject(object.map { ($0.key, JSONValue.string($0.value)) })).jsonText()
    }

    /// The object `text` holds, if it is a JSON object whose members are all strings.
    static func stringObject(_ text: String) -> [String: String]? {
        guard let members = (try? JSONValue(parsing: text))?.objectValue else { return nil }
        var object: [String: String] = [:]
        for (key, value) in members {
            guard let string = value.stringValue else { return nil }
            object[key] = string
        }
        return object
    }
}

/// What the host hands a plugin's entry point to register its module with.
@_spi(Backend) public final class PluginRegistrar: @unchecked Sendable {
    // Written by the entry point on the host's loading thread, read after it returns.
    /// The host's ``coreIdentity``, for the plugin to compare with its own.
    public let hostCoreIdentity: UInt
    private(set) var modules: [any BackendModule] = []

    init() {
        hostCoreIdentity = Self.coreIdentity
    }

    /// The address of this core's `ModelInfo` type metadata: the same number in host and
    /// plugin exactly when both are bound to one copy of the core.
    public static var coreIdentity: UInt {
        UInt(bitPattern: unsafeBitCast(ModelInfo.self as Any.Type, to: UnsafeRawPointer.self))
    }

    /// Registers the plugin's module.
    public func register(_ module: any BackendModule) {
        modules.append(module)
    }
}
