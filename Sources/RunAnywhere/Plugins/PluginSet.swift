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
        let module: any BackendModule
    }

    private struct State: Sendable {
        var loaded: [Loaded] = []
        /// Registered to open on first use, not open yet.
        var closed: [PluginInfo] = []
    }

    private typealias Entry = @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>?

    private let state = Mutex(State())
    private let failures = Mutex<[String: String]>([:])
    private let logger = SDKLogger(category: "Plugins")

    /// The plugins, open ones in loading order, then the closed ones.
    var infos: [PluginInfo] { state.withLock { $0.loaded.map(\.info) + $0.closed } }

    /// The open plugins' modules, in loading order.
    var modules: [any BackendModule] { state.withLock { $0.loaded.map(\.module) } }

    /// The files in the plugin folders that failed to load at initialization, with why, and
    /// plugins that failed to open on first use.
    var folderFailures: [String: String] { failures.withLock { $0 } }

    /// Registers every `*.so` (`*.dylib`) in `folders`, in name order, to open on first use;
    /// a failure is logged and remembered, never fatal: an app starts without a broken plugin.
    func loadFolders(_ folders: [URL], into services: ServiceRegistry, linked: [String]) {
        for folder in folders {
            // By path: the URL form with resource keys is full Foundation's, not FoundationEssentials'.
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for file in names.sorted().map({ folder.appendingPathComponent($0) })
            where ["so", "dylib"].contains(file.pathExtension) {
                // The same file reached through another folder name (a symlink) is registered once.
                let resolved = file.standardizedFileURL.resolvingSymlinksInPath().path
                guard !infos.contains(where: { $0.path == resolved }) else { continue }
                do throws(SDKException) {
                    let info = try load(file.path, opening: .onFirstUse, into: services, linked: linked)
                    logger.info("Registered plugin \(info.name) from \(file.path) (open: \(info.isOpen))")
                } catch {
                    logger.warning("Plugin \(file.path) not loaded: \(error)")
                    failures.withLock { $0[file.path] = error.description }
                }
            }
        }
    }

    /// Checks the plugin at `path`, then opens and registers it, or, for `.onFirstUse` and a
    /// library with a manifest, registers it closed (see ``PluginLoader/load(path:opening:)``).
    func load(
        _ path: String,
        opening: PluginLoader.Opening = .now,
        into services: ServiceRegistry,
        linked: [String]
    ) throws(SDKException) -> PluginInfo {
        let url = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
        let manifest = try SharedLibraryFile.check(url, entryPoint: PluginLoader.entryPoint)
        // Before anything of it runs, and before it is registered to run later.
        try TrustedCodeFile.check(url.path, what: "The plugin")
        // One load at a time: the check that the name is free and the registration are one step.
        return try state.withLock { (state: inout State) throws(SDKException) -> PluginInfo in
            if opening == .onFirstUse, let manifest {
                let info = try Self.checkDescription(Self.parse(manifest, path: url.path), path: url.path, open: false)
                // A description that names nothing to open it for is opened now: closed, it
                // would only ever open for `openAll`.
                if !(info.frameworks.isEmpty && info.provides.isEmpty && info.inspects.isEmpty) {
                    try Self.checkFree(info.name, path: url.path, state: state, linked: linked)
                    state.closed.append(info)
                    return info
                }
            }
            return try Self.open(url.path, expecting: nil, into: services, linked: linked, state: &state)
        }
    }

    /// Opens the closed plugins that serve `need`, in registration order; whether one serving
    /// it is open afterwards. A plugin that fails to open is logged, remembered in
    /// ``folderFailures`` and dropped; the outcome says why.
    func open(for need: PluginNeed, into services: ServiceRegistry) -> PluginDemand.Outcome {
        let serves = { (info: PluginInfo) -> Bool in
            switch need {
            case .framework(let framework): info.frameworks.contains(framework.rawValue)
            case .service(let service): info.provides.contains(service)
            case .inspection(let framework): info.inspects.contains(framework.rawValue)
            }
        }
        return openClosed(where: serves, reason: "\(need)", into: services)
    }

    /// Opens every closed plugin: for what needs every engine (`doctor`, the accelerator list).
    func openAll(into services: ServiceRegistry) {
        _ = openClosed(where: { _ in true }, reason: "a list of every engine", into: services)
    }

    /// Opens the closed plugins `wanted` picks; whether one it picks is open afterwards.
    private func openClosed(
        where wanted: (PluginInfo) -> Bool,
        reason: String,
        into services: ServiceRegistry
    ) -> PluginDemand.Outcome {
        state.withLock { state in
            var outcome = PluginDemand.Outcome(opened: state.loaded.contains { wanted($0.info) })
            while let index = state.closed.firstIndex(where: wanted) {
                let info = state.closed.remove(at: index)
                do throws(SDKException) {
                    _ = try Self.open(info.path, expecting: info.name, into: services, linked: [], state: &state)
                    logger.info("Opened plugin \(info.name) for \(reason)")
                    outcome.opened = true
                } catch {
                    logger.error("Plugin \(info.name) (\(info.path)) could not be opened: \(error)")
                    failures.withLock { $0[info.path] = error.description }
                    outcome.failures.append("plugin \(info.name) (\(info.path)) could not be opened: \(error)")
                }
            }
            return outcome
        }
    }

    /// Refuses a name that a linked module, an open or a closed plugin has.
    private static func checkFree(_ name: String, path: String, state: State, linked: [String]) throws(SDKException) {
        let registered = state.loaded.contains { $0.info.name == name } || state.closed.contains { $0.name == name }
        guard linked.contains(name) || registered else { return }
        throw SDKException(
            .pluginAlreadyLoaded,
            "The backend module \(name) of \(path) \(linked.contains(name) ? "is linked into this app" : "is already loaded")",
            recovery: registered ? "Unload it first (PluginLoader.unload(name:))" : nil
        )
    }

    /// Opens the library, checks its description (its name must be `expecting`'s when given)
    /// and registers its module.
    private static func open(
        _ path: String,
        expecting: String?,
        into services: ServiceRegistry,
        linked: [String],
        state: inout State
    ) throws(SDKException) -> PluginInfo {
        if expecting != nil {
            // Registered closed from its bytes: they may have changed since, and opening runs
            // the library's initializers, so the file is checked again first.
            try SharedLibraryFile.check(URL(fileURLWithPath: path), entryPoint: PluginLoader.entryPoint)
            try TrustedCodeFile.check(path, what: "The plugin")
        }
        let entry = try Self.open(path)
        let info = try Self.checkDescription(Self.call(entry, registrar: nil, path: path), path: path, open: true)
        if let expecting, info.name != expecting {
            throw SDKException(.invalidPlugin, "\(path) is now the module \(info.name), not \(expecting)")
        }
        try checkFree(info.name, path: path, state: state, linked: linked)
        let registrar = PluginRegistrar()
        let reply = try withExtendedLifetime(registrar) { () throws(SDKException) -> [String: String] in
            try Self.call(entry, registrar: Unmanaged.passUnretained(registrar).toOpaque(), path: path)
        }
        if let error = reply["error"] {
            throw SDKException(
                .pluginIncompatible,
                "\(path) cannot be used: \(error) (it sees core \(reply["core_identity"] ?? "?"), "
                    + "this process \(PluginRegistrar.coreIdentity))",
                recovery: "Link the host and the plugin against one core; see \"Plugins\" in the README"
            )
        }
        guard registrar.modules.count == 1, let module = registrar.modules.first, module.name == info.name else {
            throw SDKException(
                .invalidPlugin,
                "\(path) registered \(registrar.modules.map(\.name)) instead of its module \(info.name)"
            )
        }
        services.register(plugin: module)
        state.loaded.append(Loaded(info: info, module: module))
        return info
    }

    /// Forgets the plugin `name` after `unloadModels` has unloaded what its module serves.
    func unload(_ name: String, from services: ServiceRegistry) throws(SDKException) {
        let found = state.withLock { state in
            let closed = state.closed.count
            state.closed.removeAll { $0.name == name }
            guard let index = state.loaded.firstIndex(where: { $0.info.name == name }) else {
                return state.closed.count < closed
            }
            state.loaded.remove(at: index)
            return true
        }
        guard found else {
            throw SDKException(.pluginNotFound, "No plugin named \(name) is loaded")
        }
        services.remove(module: name)
    }

    /// Whether `name` is a loaded plugin.
    func contains(_ name: String) -> Bool {
        state.withLock { $0.loaded.contains { $0.info.name == name } || $0.closed.contains { $0.name == name } }
    }

    /// The JSON object of a manifest section.
    private static func parse(_ manifest: Data, path: String) throws(SDKException) -> [String: String] {
        // objcopy may pad the section with NULs.
        let text = manifest.prefix { $0 != 0 }
        guard let object = PluginEntry.stringObject(String(decoding: text, as: UTF8.self)) else {
            throw SDKException(
                .invalidPlugin,
                "\(path): its \(SharedLibraryFile.manifestSection) section holds "
                    + "\(String(decoding: text.prefix(200), as: UTF8.self)), not a plugin description"
            )
        }
        return object
    }

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
        guard let object = PluginEntry.stringObject(text) else {
            throw SDKException(
                .invalidPlugin,
                "\(path): the plugin entry point returned \(text.prefix(200)), not its JSON"
            )
        }
        return object
    }

    private static func checkDescription(
        _ description: [String: String],
        path: String,
        open: Bool
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
            staysMapped: true,
            frameworks: list(description["frameworks"]),
            provides: list(description["provides"]),
            inspects: list(description["inspects"]),
            isOpen: open
        )
    }

    private static func list(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmedSpaces() }.filter { !$0.isEmpty }
    }
}
