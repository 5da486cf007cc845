import GRDBSQLite
@_spi(Backend) public import RunAnywhere

/// SQLite (Debian's libsqlite3) through GRDB for the queue that telemetry and error reports
/// wait in.
///
/// Register it like an engine module, before telemetry or error reporting starts:
///
/// ```swift
/// import RunAnywhere
/// import RunAnywhereSQLite
///
/// RunAnywhere.register(SQLiteStorageModule())
/// ```
public struct SQLiteStorageModule: BackendModule {
    /// The module's name.
    public let name = "sqlite"

    /// Creates the module.
    public init() {}

    /// Offers the telemetry queue.
    public func register(with registry: ServiceRegistry) {
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
            details: ["serves": "telemetry and error-report queues"],
            runsOnDevice: false  // it runs no model: no accelerator lists it
        )
    }
}
