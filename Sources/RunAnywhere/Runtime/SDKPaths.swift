#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The SDK's folders on disk.
///
/// Everything lives under one home: `$RUNANYWHERE_HOME`, else
/// `$XDG_DATA_HOME/runanywhere`, else `~/.local/share/runanywhere`:
///
/// ```
/// <home>/registry.json            the model registry
/// <home>/models/<framework>/<id>/ one folder per model, with its files and model.json
/// <home>/rag/<name>/              one RAG index: index.sqlite and index.json
/// <home>/cache/                   caches that may be deleted at any time
/// <home>/tmp/                     partial writes; emptied of stale files at start
/// <home>/tmp/downloads/<id>/       a download in progress, resumable until it completes
/// ```
public struct SDKPaths: Sendable, Equatable {
    /// The root folder.
    public let home: URL

    /// Paths rooted at `home`.
    public init(home: URL) {
        self.home = home.standardizedFileURL
    }

    /// The default home, from the environment.
    public static func defaultHome(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let explicit = environment["RUNANYWHERE_HOME"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit, isDirectory: true)
        }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("runanywhere", isDirectory: true)
        }
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        // An app's sandbox has no home of its own to write in: its Application Support folder.
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)
        return (support.first ?? FileManager.default.temporaryDirectory)
            .appendingPathComponent("runanywhere", isDirectory: true)
        #else
        let home =
            environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".local/share/runanywhere", isDirectory: true)
        #endif
    }

    /// The registry file.
    public var registryFile: URL { home.appendingPathComponent("registry.json") }
    /// The folder holding all model folders.
    public var modelsDirectory: URL { home.appendingPathComponent("models", isDirectory: true) }
    /// The ``SecureStore``'s folder on Linux (0700): sealed secrets and their key file.
    public var secureDirectory: URL { home.appendingPathComponent("secure", isDirectory: true) }
    /// Deletable caches.
    public var cacheDirectory: URL { home.appendingPathComponent("cache", isDirectory: true) }
    /// Partial files.
    public var tempDirectory: URL { home.appendingPathComponent("tmp", isDirectory: true) }

    /// Backend plugins loaded at initialization (`plugins/`; see ``PluginLoader``).
    public var pluginsDirectory: URL { home.appendingPathComponent("plugins", isDirectory: true) }

    /// The telemetry queue: events waiting for the control plane (SQLite).
    public var telemetryQueueFile: URL { home.appendingPathComponent("telemetry.sqlite") }

    /// Warning and error lines waiting for the Sentry-compatible collector (see
    /// `RunAnywhereSDK.setRemoteErrorReportingEnabled(_:sentryDSN:)` in `RunAnywhereControlPlane`).
    public var errorReportQueueFile: URL { home.appendingPathComponent("error-reports.sqlite") }

    /// The folder holding all RAG indexes.
    public var ragDirectory: URL { home.appendingPathComponent("rag", isDirectory: true) }

    /// The folder of one RAG index.
    public func ragIndexDirectory(name: String) -> URL {
        ragDirectory.appendingPathComponent(name, isDirectory: true)
    }

    /// The name of a RAG index's database file in its folder.
    public static let ragDatabaseFileName = "index.sqlite"

    /// The database file of the RAG index `name`.
    public func ragDatabaseFile(name: String) -> URL {
        ragIndexDirectory(name: name).appendingPathComponent(Self.ragDatabaseFileName)
    }

    /// Partial downloads, one folder per model.
    public var downloadsDirectory: URL { tempDirectory.appendingPathComponent("downloads", isDirectory: true) }

    /// The work folder of one model's download.
    public func downloadDirectory(for id: String) -> URL {
        downloadsDirectory.appendingPathComponent(id, isDirectory: true)
    }

    /// The folder of one model.
    public func modelDirectory(framework: InferenceFramework, id: String) -> URL {
        modelsDirectory.appendingPathComponent(framework.rawValue, isDirectory: true)
            .appendingPathComponent(id, isDirectory: true)
    }

    /// Creates the folders that must exist.
    func createDirectories() throws(SDKException) {
        for dir in [home, modelsDirectory, cacheDirectory, tempDirectory] {
            do {
                try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            } catch {
                throw SDKException(.fileSystemError, "Cannot create \(dir.path)", underlying: error)
            }
        }
    }
}
