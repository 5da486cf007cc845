import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

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

/// `runanywhere plugins …`: backends loaded at run time.
struct PluginsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List, install and remove backend plugins.",
        discussion: """
            A plugin is a shared library that brings a backend across RunAnywhere's C ABI \
            (rac_plugin.h), e.g. libRunAnywhereWhisperPlugin.so, which `swift build` makes. Plugins in $RUNANYWHERE_HOME/plugins/ and in the folders of \
            $\(PluginLoader.pathVariable) load when any command starts. `load` checks a plugin by \
            loading it, then copies it into $RUNANYWHERE_HOME/plugins/; `unload` removes it from there.
            """,
        subcommands: [List.self, Load.self, Unload.self]
    )

    /// What `plugins` commands print with `--json`.
    struct Report: Encodable {
        var apiVersion: UInt32
        var registered: [String]
        var loaded: [PluginInfo]
        var failed: [String: String]
        var installed: String?
        var removed: String?
    }

    /// The home's plugin folder, once the SDK is initialized.
    static func folder() throws(SDKException) -> URL {
        guard let paths = RunAnywhere.paths else { throw SDKException(.notInitialized, "The SDK is not initialized") }
        return paths.pluginsDirectory
    }

    static func report(installed: String? = nil, removed: String? = nil) -> Report {
        let loader = RunAnywhere.pluginLoader
        return Report(
            apiVersion: loader.apiVersion,
            registered: loader.registeredNames(),
            loaded: loader.listLoaded(),
            failed: loader.failedAtInitialization(),
            installed: installed,
            removed: removed
        )
    }

    static func print(_ report: Report, json: Bool) throws {
        if json { return try CLI.printJSON(report) }
        Swift.print("plugin API \(report.apiVersion)")
        Swift.print("backends: \(report.registered.joined(separator: ", "))")
        for plugin in report.loaded {
            let engine = plugin.engine.map { "\($0), " } ?? ""
            Swift.print(
                "  plugin \(plugin.name) (\(engine)\(plugin.capabilities.joined(separator: ", ")) for "
                    + "\(plugin.frameworks.joined(separator: ", "))): \(plugin.path)"
            )
        }
        for (path, reason) in report.failed.sorted(by: { $0.key < $1.key }) {
            Swift.print("  not loaded: \(path): \(reason)")
        }
        if let installed = report.installed { Swift.print("installed: \(installed)") }
        if let removed = report.removed { Swift.print("removed: \(removed)") }
    }

    struct List: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "The backends: linked, and loaded from plugins."
        )
        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Print one JSON object.") var json = false

        func execute() async throws {
            try await CLI.start(global)
            try PluginsCommand.print(PluginsCommand.report(), json: json)
        }
    }

    struct Load: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "load",
            abstract: "Load a plugin to check it, then install it for every later command."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The plugin library.") var path: String
        @Flag(name: .long, help: "Print one JSON object.") var json = false

        func execute() async throws {
            try await CLI.start(global)
            let info = try RunAnywhere.pluginLoader.load(path: path)
            let folder = try PluginsCommand.folder()
            let target = folder.appendingPathComponent(URL(fileURLWithPath: info.path).lastPathComponent)
            if target.standardizedFileURL.path != URL(fileURLWithPath: info.path).standardizedFileURL.path {
                try install(URL(fileURLWithPath: info.path), as: target)
            }
            try PluginsCommand.print(PluginsCommand.report(installed: target.path), json: json)
        }

        /// Copies beside the target, then renames: the folder never holds half a library.
        private func install(_ source: URL, as target: URL) throws(SDKException) {
            let partial = target.appendingPathExtension("partial")
            do {
                try FileManager.default.createDirectory(
                    at: target.deletingLastPathComponent(),
                    withIntermediateDirectories: true
                )
                try? FileManager.default.removeItem(at: partial)
                try FileManager.default.copyItem(at: source, to: partial)
                guard rename(partial.path, target.path) == 0 else {
                    throw POSIXError(errno: errno)
                }
            } catch {
                try? FileManager.default.removeItem(at: partial)
                throw SDKException(
                    .fileSystemError,
                    "Cannot install \(source.path) as \(target.path)",
                    underlying: error
                )
            }
        }
    }

    struct Unload: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "unload",
            abstract: "Unload an installed plugin and remove it from $RUNANYWHERE_HOME/plugins/."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The plugin's module name (see `plugins list`).") var name: String
        @Flag(name: .long, help: "Print one JSON object.") var json = false

        func execute() async throws {
            try await CLI.start(global)
            let folder = try PluginsCommand.folder().standardizedFileURL.path
            let plugin = RunAnywhere.pluginLoader.listLoaded().first { $0.name == name }
            try RunAnywhere.pluginLoader.unload(name: name)
            guard let path = plugin?.path, URL(fileURLWithPath: path).deletingLastPathComponent().path == folder else {
                throw SDKException(
                    .pluginNotFound,
                    "\(name) is not installed in \(folder) (it was loaded from \(plugin?.path ?? "?"))",
                    recovery: "Remove it from $\(PluginLoader.pathVariable) instead"
                )
            }
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                throw SDKException(.fileSystemError, "Cannot remove \(path)", underlying: error)
            }
            try PluginsCommand.print(PluginsCommand.report(removed: path), json: json)
        }
    }
}
