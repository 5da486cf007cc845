internal import CRunAnywherePlugin
import Synchronization

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

/// The plugins one SDK instance has loaded from files, and how it loads them.
final class PluginSet: Sendable {
    private struct Loaded: Sendable {
        let info: PluginInfo
        let module: PluginModule
    }

    private let loaded = Mutex<[Loaded]>([])
    private let failures = Mutex<[String: String]>([:])
    private let logger = SDKLogger(category: "Plugins")

    /// The plugins, in loading order.
    var infos: [PluginInfo] { loaded.withLock { $0.map(\.info) } }

    /// The plugins' modules, in loading order.
    var modules: [any BackendModule] { loaded.withLock { $0.map(\.module) } }

    /// The files in the plugin folders that failed to load at initialization, with why.
    var folderFailures: [String: String] { failures.withLock { $0 } }

    /// Loads every `*.so` (`*.dylib`) in `folders`, in name order; a failure is logged and
    /// remembered, never fatal: an app starts without a broken plugin.
    func loadFolders(_ folders: [URL], into services: ServiceRegistry, linked: [String]) {
        for folder in folders {
            // By path: the URL form with resource keys is full Foundation's, not FoundationEssentials'.
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for file in names.sorted().map({ folder.appendingPathComponent($0) })
            where ["so", "dylib"].contains(file.pathExtension) {
                // The same file reached through another folder name (a symlink) is loaded once.
                let resolved = file.standardizedFileURL.resolvingSymlinksInPath().path
                guard !infos.contains(where: { $0.path == resolved }) else { continue }
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

    /// Opens the plugin at `path`, checks its description and registers its module (see
    /// ``PluginLoader/load(path:)``).
    func load(_ path: String, into services: ServiceRegistry, linked: [String]) throws(SDKException) -> PluginInfo {
        // Before anything of it runs: only from a place no other user can write.
        let resolved = try TrustedCodeFile.check(path, what: "The plugin")
        let description = try Self.open(resolved)
        let info = try Self.check(description, path: resolved)
        let module = PluginModule(info: info, description: description)
        // One load at a time: the check that the name is free and the registration are one step.
        try loaded.withLock { (loaded: inout [Loaded]) throws(SDKException) in
            let registered = loaded.contains { $0.info.name == info.name }
            guard !registered, !linked.contains(info.name) else {
                throw SDKException(
                    .pluginAlreadyLoaded,
                    "The plugin \(info.name) of \(resolved) \(registered ? "is already loaded" : "is a module linked into this app")",
                    recovery: registered ? "Unload it first (PluginLoader.unload(name:))" : nil
                )
            }
            services.register(plugin: module)
            loaded.append(Loaded(info: info, module: module))
        }
        return info
    }

    /// Forgets the plugin `name` unless it holds a model's handle (see ``PluginLoader/unload(name:)``).
    func unload(_ name: String, from services: ServiceRegistry) throws(SDKException) {
        // One step, as loading is: a load through the plugin has either recorded its model
        // already, and keeps the plugin, or finds it retired and fails.
        try loaded.withLock { (loaded: inout [Loaded]) throws(SDKException) in
            guard let index = loaded.firstIndex(where: { $0.info.name == name }) else {
                throw SDKException(.pluginNotFound, "No plugin named \(name) is loaded")
            }
            let inUse = loaded[index].module.handles.retire()
            guard inUse.isEmpty else {
                let models = "model\(inUse.count == 1 ? "" : "s") \(inUse.joined(separator: ", "))"
                throw SDKException(
                    .pluginInUse,
                    "The plugin \(name) runs the loaded \(models)",
                    recovery: "Unload \(inUse.count == 1 ? "it" : "them") first"
                )
            }
            loaded.remove(at: index)
            services.remove(module: name)
        }
    }

    /// Whether `name` is a loaded plugin.
    func contains(_ name: String) -> Bool {
        loaded.withLock { $0.contains { $0.info.name == name } }
    }

    /// The description the library's entry point returns.
    private static func open(_ path: String) throws(SDKException) -> UnsafePointer<rac_plugin> {
        // Never closed (RTLD_NODELETE too): a plugin written in Swift registers type metadata
        // that the Swift runtime keeps pointers to. On Linux the plugin binds to its own
        // symbols first (RTLD_DEEPBIND), so a plugin that carries its own copy of the SDK or
        // of an engine never reaches the host's.
        #if os(Linux)
        let flags = RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE | RTLD_DEEPBIND
        #else
        let flags = RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE
        #endif
        guard let handle = dlopen(path, flags) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            throw SDKException(.invalidPlugin, "\(path) cannot be opened as a plugin: \(reason)")
        }
        guard let symbol = dlsym(handle, RAC_PLUGIN_ENTRY_NAME) else {
            throw SDKException(
                .invalidPlugin,
                "\(path) is not a RunAnywhere plugin: it does not export \(RAC_PLUGIN_ENTRY_NAME)",
                recovery: "A plugin exports `const rac_plugin *rac_plugin_entry(void)` (see rac_plugin.h)"
            )
        }
        let entry = unsafeBitCast(symbol, to: rac_plugin_entry_fn.self)
        guard let description = entry() else {
            throw SDKException(.invalidPlugin, "\(path): its entry point returned no description (it cannot run here)")
        }
        return description
    }

    /// Checks the description, its version before anything else.
    private static func check(_ description: UnsafePointer<rac_plugin>, path: String) throws(SDKException) -> PluginInfo
    {
        let version = description.pointee.api_version
        guard version == RAC_PLUGIN_API_VERSION else {
            throw SDKException(
                .pluginIncompatible,
                "\(path) was built for plugin ABI \(version); this SDK loads ABI \(RAC_PLUGIN_API_VERSION)",
                recovery: "Rebuild the plugin with this SDK's rac_plugin.h"
            )
        }
        let name = String(nullableCString: description.pointee.name)
        guard !name.isEmpty, name.utf8.count <= 128,
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
        else {
            throw SDKException(
                .invalidPlugin,
                "\(path): its name \"\(name.prefix(128))\" is empty or not letters, digits, -, _ and ."
            )
        }
        var frameworks: [String] = []
        if var cursor = description.pointee.frameworks {
            while let framework = cursor.pointee, frameworks.count < 64 {
                frameworks.append(String(cString: framework))
                cursor += 1
            }
        }
        var capabilities: [String] = []
        if description.pointee.stt != nil { capabilities.append("stt") }
        guard !capabilities.isEmpty, !frameworks.isEmpty else {
            throw SDKException(.invalidPlugin, "\(path): the plugin \(name) offers no capability for any framework")
        }
        if let stt = description.pointee.stt?.pointee,
            stt.load == nil || stt.transcribe == nil || stt.unload == nil
        {
            throw SDKException(.invalidPlugin, "\(path): the plugin \(name)'s speech recognition lacks a function")
        }
        return PluginInfo(
            name: name,
            path: path,
            apiVersion: version,
            engine: description.pointee.engine.map { String(cString: $0) },
            frameworks: frameworks,
            capabilities: capabilities,
            priority: Int(description.pointee.priority)
        )
    }
}

/// A plugin's offer to the service registry: its capabilities for its frameworks.
struct PluginModule: BackendModule, @unchecked Sendable {
    // The description and its tables are the plugin's, immutable and mapped for the life of the process.
    let info: PluginInfo
    let description: UnsafePointer<rac_plugin>
    /// Shared by every copy of the module and the services it loads.
    let handles = PluginHandles()

    var name: String { info.name }

    func register(with registry: ServiceRegistry) {
        if let stt = description.pointee.stt {
            let frameworks = info.frameworks
            let operations = PluginTable(stt)
            let handles = self.handles
            registry.registerSTT(
                name: info.name,
                priority: info.priority,
                canHandle: { model in
                    model.category == .speechRecognition && frameworks.contains(model.framework.rawValue)
                },
                factory: { model in
                    try await PluginSTTService.load(model: model, operations: operations.table, handles: handles)
                }
            )
        }
    }

    func engineInfo() -> EngineInfo {
        EngineInfo(
            name: info.name,
            version: info.engine,
            available: true,
            details: ["plugin": info.path, "frameworks": info.frameworks.joined(separator: ", ")]
        )
    }
}

/// A table of a plugin's C functions, immutable and mapped for the life of the process.
struct PluginTable<Table>: @unchecked Sendable {
    let table: UnsafePointer<Table>

    init(_ table: UnsafePointer<Table>) {
        self.table = table
    }
}
