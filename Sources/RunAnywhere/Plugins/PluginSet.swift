import Foundation
import Synchronization

/// The plugins one SDK instance has loaded from files, and how it loads them.
final class PluginSet: Sendable {
    private struct Loaded: Sendable {
        let info: PluginInfo
        let module: any BackendModule
    }

    private typealias Entry = @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>?

    private let loaded = Mutex<[Loaded]>([])
    private let failures = Mutex<[String: String]>([:])
    private let logger = SDKLogger(category: "Plugins")

    /// The plugins loaded, in loading order.
    var infos: [PluginInfo] { loaded.withLock { $0.map(\.info) } }

    /// Their modules, in loading order.
    var modules: [any BackendModule] { loaded.withLock { $0.map(\.module) } }

    /// The files in the plugin folders that failed to load at initialization, with why.
    var folderFailures: [String: String] { failures.withLock { $0 } }

    /// Loads every `*.so` (`*.dylib`) in `folders`, in name order; a failure is logged and
    /// remembered, never fatal: an app starts without a broken plugin.
    func loadFolders(_ folders: [URL], into services: ServiceRegistry, linked: [String]) {
        for folder in folders {
            let files =
                (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
            for file in files.sorted(by: { $0.lastPathComponent < $1.lastPathComponent })
            where ["so", "dylib"].contains(file.pathExtension) {
                do throws(SDKException) {
                    let info = try load(file.path, into: services, linked: linked)
                    logger.info("Loaded plugin \(info.name) from \(file.path)")
                } catch {
                    logger.warning("Plugin \(file.path) not loaded: \(error)")
                    failures.withLock { $0[file.path] = error.description }
                }
            }
        }
    }

    /// Checks, opens and registers the plugin at `path` (see ``PluginLoader/load(path:)``).
    func load(_ path: String, into services: ServiceRegistry, linked: [String]) throws(SDKException) -> PluginInfo {
        let url = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
        try SharedLibraryFile.check(url, entryPoint: PluginLoader.entryPoint)
        // One load at a time: the check that the name is free and the registration are one step.
        return try loaded.withLock { (loaded: inout [Loaded]) throws(SDKException) -> PluginInfo in
            let entry = try Self.open(url.path)
            let description = try Self.call(entry, registrar: nil, path: url.path)
            let info = try Self.checkDescription(description, path: url.path)
            if linked.contains(info.name) || loaded.contains(where: { $0.info.name == info.name }) {
                let how = linked.contains(info.name) ? "is linked into this app" : "is already loaded"
                throw SDKException(
                    .pluginAlreadyLoaded,
                    "The backend module \(info.name) of \(url.path) \(how)",
                    recovery: loaded.contains(where: { $0.info.name == info.name })
                        ? "Unload it first (PluginLoader.unload(name:))" : nil
                )
            }
            let registrar = PluginRegistrar()
            let reply = try withExtendedLifetime(registrar) { () throws(SDKException) -> [String: String] in
                try Self.call(entry, registrar: Unmanaged.passUnretained(registrar).toOpaque(), path: url.path)
            }
            if let error = reply["error"] {
                throw SDKException(
                    .pluginIncompatible,
                    "\(url.path) cannot be used: \(error) (it sees core \(reply["core_identity"] ?? "?"), "
                        + "this process \(PluginRegistrar.coreIdentity))",
                    recovery: "Link the host and the plugin against one core; see \"Plugins\" in the README"
                )
            }
            guard registrar.modules.count == 1, let module = registrar.modules.first, module.name == info.name else {
                throw SDKException(
                    .invalidPlugin,
                    "\(url.path) registered \(registrar.modules.map(\.name)) instead of its module \(info.name)"
                )
            }
            services.register(plugin: module)
            loaded.append(Loaded(info: info, module: module))
            return info
        }
    }

    /// Forgets the plugin `name` after `unloadModels` has unloaded what its module serves.
    func unload(_ name: String, from services: ServiceRegistry) throws(SDKException) {
        let found = loaded.withLock { loaded in
            guard let index = loaded.firstIndex(where: { $0.info.name == name }) else { return false }
            loaded.remove(at: index)
            return true
        }
        guard found else {
            throw SDKException(.pluginNotFound, "No plugin named \(name) is loaded")
        }
        services.remove(module: name)
    }

    /// Whether `name` is a loaded plugin.
    func contains(_ name: String) -> Bool { loaded.withLock { $0.contains { $0.info.name == name } } }

    private static func open(_ path: String) throws(SDKException) -> Entry {
        // Never closed (RTLD_NODELETE too): the Swift runtime keeps pointers into every
        // library whose type metadata it has seen, so unmapping one crashes the next cast.
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            let unboundCore = reason.contains("undefined symbol: $s11RunAnywhere")
            throw SDKException(
                .invalidPlugin,
                "\(path) cannot be opened: \(reason)",
                recovery: unboundCore
                    ? "The plugin takes the RunAnywhere core from its host: link the host executable with "
                        + "-Xlinker --export-dynamic (see \"Plugins\" in the README)" : nil
            )
        }
        guard let symbol = dlsym(handle, PluginLoader.entryPoint) else {
            throw SDKException(.invalidPlugin, "\(path) does not export \(PluginLoader.entryPoint)")
        }
        return unsafeBitCast(symbol, to: Entry.self)
    }

    private static func call(
        _ entry: Entry,
        registrar: UnsafeMutableRawPointer?,
        path: String
    ) throws(SDKException) -> [String: String] {
        guard let reply = entry(registrar) else {
            throw SDKException(.invalidPlugin, "\(path): the plugin entry point returned nothing")
        }
        defer { free(reply) }
        let text = String(cString: reply)
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String] else {
            throw SDKException(
                .invalidPlugin,
                "\(path): the plugin entry point returned \(text.prefix(200)), not its JSON"
            )
        }
        return object
    }

    private static func checkDescription(
        _ description: [String: String],
        path: String
    ) throws(SDKException) -> PluginInfo {
        guard let version = description["api_version"].flatMap(UInt32.init), let toolchain = description["toolchain"],
            let sdkVersion = description["sdk_version"], let name = description["name"], !name.isEmpty,
            name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) })
        else {
            throw SDKException(.invalidPlugin, "\(path): the plugin's description \(description) lacks a field")
        }
        let host = "API \(PluginEntry.apiVersion), \(PluginEntry.toolchain), RunAnywhere \(RunAnywhere.version)"
        let plugin = "API \(version), \(toolchain), RunAnywhere \(sdkVersion)"
        guard version == PluginEntry.apiVersion, toolchain == PluginEntry.toolchain, sdkVersion == RunAnywhere.version
        else {
            throw SDKException(
                .pluginIncompatible,
                "\(path) was built for \(plugin); this app is \(host)",
                recovery: "Rebuild the plugin against this RunAnywhere with the same Swift toolchain"
            )
        }
        return PluginInfo(
            name: name,
            path: path,
            apiVersion: version,
            toolchain: toolchain,
            sdkVersion: sdkVersion,
            staysMapped: true
        )
    }
}
