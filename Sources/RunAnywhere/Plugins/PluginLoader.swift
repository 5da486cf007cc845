#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Loads backend plugins, shared libraries that bring an engine at run time, and lists the
/// backends an instance has.
///
/// A plugin exports one C entry point, `runanywhere_plugin_entry` (see `PluginEntry`),
/// which reports the plugin API version, the Swift toolchain and the RunAnywhere version it
/// was built with, and registers its ``BackendModule``. The host refuses a file that is not
/// such a library from its ELF headers before opening it, and a plugin built for another
/// version or toolchain before any Swift value crosses.
///
/// **One core.** A plugin's code is bound to the RunAnywhere core of its host: plugins are
/// linked with the core's symbols left unresolved, and the host exports its own (an
/// executable that links RunAnywhere statically needs `-Xlinker --export-dynamic`; one that
/// links it as a shared library exports it already). A plugin that brings a second copy of
/// the core is refused (`pluginIncompatible`): its types would not be the host's.
///
/// **Engines open when used.** A plugin built by `scripts/build_plugins.sh` carries its
/// description in an ELF section: the model frameworks it serves, the services it provides
/// without a model and the frameworks whose model files it inspects. Registered with
/// ``Opening/onFirstUse``, it is not opened, and its engine's libraries are not mapped, until a
/// model of one of those frameworks is loaded (or a file of a framework it inspects is imported,
/// downloaded or discovered), or one of those services is needed, and no linked backend serves it.
///
/// Plugins in `$RUNANYWHERE_HOME/plugins/` and in the folders of `RUNANYWHERE_PLUGIN_PATH`
/// (separated by `:`) are registered at initialization to open on first use (those without a
/// description are opened then); a broken one is logged and skipped.
///
/// ```swift
/// let info = try RunAnywhere.pluginLoader.load(path: "/opt/plugins/libRunAnywhereWhisperCPPPlugin.so")
/// print(info.name, RunAnywhere.pluginLoader.registeredNames())
/// try await RunAnywhere.loadSTTModel("whisper-tiny-en")
/// ```
public struct PluginLoader: Sendable {
    /// The C symbol every plugin exports.
    public static let entryPoint = "runanywhere_plugin_entry"
    /// The environment variable naming more plugin folders, separated by `:`.
    public static let pathVariable = "RUNANYWHERE_PLUGIN_PATH"

    /// When a plugin's library is opened.
    public enum Opening: Sendable {
        /// At once: its module's services are registered before ``load(path:opening:)`` returns.
        case now
        /// When first needed (see ``PluginInfo/isOpen``); at once for a library without the
        /// description section, or whose description names no framework or service.
        case onFirstUse
    }

    private let sdk: RunAnywhereSDK?

    init(sdk: RunAnywhereSDK?) {
        self.sdk = sdk
    }

    /// The plugin API version this SDK loads.
    public var apiVersion: UInt32 { PluginEntry.apiVersion }

    /// How many backend modules are registered, linked or loaded.
    public var registeredCount: Int { registeredNames().count }

    /// The names of the registered backend modules: linked ones first, then open plugins in
    /// loading order, then plugins registered to open on first use.
    public func registeredNames() -> [String] {
        guard let sdk else { return RunAnywhere.registeredModules.map(\.name) }
        let closed = ((try? sdk.runtime().plugins.infos) ?? []).filter { !$0.isOpen }.map(\.name)
        return sdk.registeredModules.map(\.name) + closed
    }

    /// The plugins loaded from files, open ones in loading order, then closed ones.
    public func listLoaded() -> [PluginInfo] {
        (try? sdk?.runtime().plugins.infos) ?? []
    }

    /// Plugin files in the plugin folders that failed to load at initialization, and plugins
    /// that failed to open on first use, with the reason.
    public func failedAtInitialization() -> [String: String] {
        (try? sdk?.runtime().plugins.folderFailures) ?? [:]
    }

    /// Loads the plugin at `path` and registers its module: its services are offered at once,
    /// or, with `.onFirstUse`, when first needed.
    ///
    /// - Throws: `.invalidPlugin` for a missing file, a folder, a file that is not a shared
    ///   library for this machine or does not export the entry point, or one that cannot be
    ///   opened; `.pluginIncompatible` for another plugin API version, toolchain or SDK version,
    ///   or a plugin bound to a second copy of the core; `.pluginAlreadyLoaded` when its module
    ///   is already registered; `.insecurePermissions` when other users could write the file or
    ///   a folder above it; `.notInitialized` without an instance. Nothing is registered then.
    ///   A plugin registered for first use that fails to open then is logged and listed by
    ///   ``failedAtInitialization()``, and the model's load fails with `.noBackendForModel`.
    @discardableResult
    public func load(path: String, opening: Opening = .now) throws(SDKException) -> PluginInfo {
        guard let sdk else { throw RunAnywhere.notInitializedError }
        let runtime = try sdk.runtime()
        return try runtime.plugins.load(path, opening: opening, into: runtime.services, linked: sdk.linkedModuleNames)
    }

    /// Opens every plugin registered to open on first use, for what lists every engine
    /// (`runanywhere doctor`); their engines' libraries are mapped from then on.
    public func openAll() {
        guard let runtime = try? sdk?.runtime() else { return }
        runtime.plugins.openAll(into: runtime.services)
    }

    /// Unregisters a loaded plugin's module, after unloading the models its services run. The
    /// library stays mapped (``PluginInfo/staysMapped``): the Swift runtime cannot forget the
    /// types it has seen in it. Loading the same file again registers the module again.
    ///
    /// - Throws: `.pluginNotFound` when no plugin of that name is loaded (a module linked into
    ///   the app cannot be unloaded); `.notInitialized` without an instance.
    public func unload(name: String) async throws(SDKException) {
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
        await runtime.unloadModels { runtime.services.isServed($0, byModule: name) }
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
