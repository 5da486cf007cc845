#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Loads plugins, shared libraries that bring an engine at run time across a C boundary, and
/// lists the backends an instance has.
///
/// A plugin exports one C function, `rac_plugin_entry`, returning its ABI version, its name,
/// the model frameworks it serves and a table of C functions per capability (`rac_plugin.h`,
/// the `CRunAnywherePlugin` module). No Swift type crosses: a plugin carries whatever it is
/// built from (its own copy of this SDK, if it is written in Swift on it) and needs neither the
/// host's toolchain nor its version of the SDK, only the same ABI version. It may be written in
/// C, C++ or Swift (`@_cdecl`); `RunAnywhereWhisperPlugin` is one, on whisper.cpp.
///
/// Plugins in `$RUNANYWHERE_HOME/plugins/` and in the folders of `RUNANYWHERE_PLUGIN_PATH`
/// (separated by `:`) are loaded at initialization; a broken one is logged and skipped
/// (``failedAtInitialization()``). Only files no other user can write are loaded.
///
/// ```swift
/// let info = try RunAnywhere.pluginLoader.load(path: "/opt/plugins/libRunAnywhereWhisperPlugin.so")
/// print(info.name, RunAnywhere.pluginLoader.registeredNames())
/// try await RunAnywhere.loadSTTModel("whisper-tiny-en")
/// ```
public struct PluginLoader: Sendable {
    /// The C symbol every plugin exports.
    public static let entryPoint = "rac_plugin_entry"
    /// The environment variable naming more plugin folders, separated by `:`.
    public static let pathVariable = "RUNANYWHERE_PLUGIN_PATH"

    private let sdk: RunAnywhereSDK?

    init(sdk: RunAnywhereSDK?) {
        self.sdk = sdk
    }

    /// The plugin ABI version this SDK loads (`RAC_PLUGIN_API_VERSION`).
    public var apiVersion: UInt32 { 1 }

    /// How many backend modules are registered, linked or loaded.
    public var registeredCount: Int { registeredNames().count }

    /// The names of the registered backend modules: linked ones first, then plugins in loading order.
    public func registeredNames() -> [String] {
        (sdk?.registeredModules ?? RunAnywhere.registeredModules).map(\.name)
    }

    /// The plugins loaded from files, in loading order.
    public func listLoaded() -> [PluginInfo] {
        (try? sdk?.runtime().plugins.infos) ?? []
    }

    /// Plugin files in the plugin folders that failed to load at initialization, with the reason.
    public func failedAtInitialization() -> [String: String] {
        (try? sdk?.runtime().plugins.folderFailures) ?? [:]
    }

    /// Loads the plugin at `path` and registers what it offers.
    ///
    /// - Throws: `.invalidPlugin` for a file that cannot be opened as a shared library, lacks
    ///   `rac_plugin_entry`, or describes itself wrongly (no name, no capability, a table
    ///   without its functions); `.pluginIncompatible` for another ABI version;
    ///   `.pluginAlreadyLoaded` when a plugin or linked module of its name is registered;
    ///   `.insecurePermissions` when other users could write the file or a folder above it;
    ///   `.fileSystemError` when it does not exist; `.notInitialized` without an instance.
    ///   Nothing is registered then.
    @discardableResult
    public func load(path: String) throws(SDKException) -> PluginInfo {
        guard let sdk else { throw RunAnywhere.notInitializedError }
        let runtime = try sdk.runtime()
        return try runtime.plugins.load(path, into: runtime.services, linked: sdk.linkedModuleNames)
    }

    /// Unregisters a loaded plugin. The library stays mapped (``PluginInfo/staysMapped``);
    /// loading the same file again registers it again.
    ///
    /// Synchronous, as the original SDK's: the plugin keeps its own count of the models whose
    /// handles it holds, loads in progress included, so no engine needs asking, and the check
    /// and the removal are one step: a model cannot start loading through the plugin between them.
    ///
    /// - Throws: `.pluginInUse` while a model it runs is loaded or loading (unload the model
    ///   first); `.pluginNotFound` when no plugin of that name is loaded (a module linked into
    ///   the app cannot be unloaded); `.notInitialized` without an instance.
    public func unload(name: String) throws(SDKException) {
        guard let sdk else { throw RunAnywhere.notInitializedError }
        let runtime = try sdk.runtime()
        guard runtime.plugins.contains(name) else {
            let linked = sdk.linkedModuleNames.contains(name)
            throw SDKException(
                .pluginNotFound,
                linked
                    ? "\(name) is linked into this app, not loaded from a plugin" : "No plugin named \(name) is loaded",
                recovery: linked ? nil : "Loaded plugins: \(runtime.plugins.infos.map(\.name))"
            )
        }
        try runtime.plugins.unload(name, from: runtime.services)
    }
}

extension RunAnywhereSDK {
    /// This instance's backends: plugins to load and unload, and the modules registered.
    public var pluginLoader: PluginLoader { PluginLoader(sdk: self) }
}

extension RunAnywhere {
    /// The shared instance's backends (see ``PluginLoader``). Before initialization it lists
    /// the registered modules; loading a plugin then throws `.notInitialized`.
    public static var pluginLoader: PluginLoader { PluginLoader(sdk: shared) }
}
