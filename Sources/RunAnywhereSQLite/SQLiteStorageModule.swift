import GRDBSQLite
@_spi(Backend) public import RunAnywhere

/// SQLite (Debian's libsqlite3) through GRDB for what the SDK keeps in databases:
/// RAG indexes, and the queues that telemetry and error reports wait in.
///
/// Register it like an engine module, before anything opens an index or a queue:
///
/// ```swift
/// import RunAnywhere
/// import RunAnywhereSQLite
///
/// RunAnywhere.register(SQLiteStorageModule())
/// try RunAnywhere.initialize()
/// let index = try await RunAnywhere.createRAGIndex("manuals")
/// ```
///
/// A module of its own so that a program that keeps no index maps neither SQLite nor the
/// full Foundation GRDB needs; the `runanywhere` CLI opens it as a plugin when it first does.
public struct SQLiteStorageModule: BackendModule {
    /// The module's name.
    public let name = "sqlite"

    /// Creates the module.
    public init() {}

    /// Offers the RAG store and the telemetry queue.
    public func register(with registry: ServiceRegistry) {
        registry.registerRAGStore(name: name) { url, create, maxBytes throws(SDKException) in
            try SQLiteRAGStore(url: url, create: create, maxBytes: maxBytes)
        }
        registry.registerTelemetryQueue(name: name) { url, capacity throws(SDKException) in
            try SQLiteTelemetryQueue(url: url, capacity: capacity)
        }
    }

    /// SQLite's version, for `runanywhere doctor`.
    public func engineInfo() -> EngineInfo {
        EngineInfo(
            name: "SQLite",
            version: String(cString: sqlite3_libversion()),
            available: true,
            details: ["serves": "RAG indexes, telemetry and error-report queues"],
            runsOnDevice: false  // it runs no model: no accelerator lists it
        )
    }
}
