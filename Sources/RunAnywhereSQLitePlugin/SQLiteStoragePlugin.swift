@_spi(Backend) import RunAnywhere
import RunAnywhereSQLite

/// SQLite storage as a plugin: `scripts/build_plugins.sh` links this with the module and GRDB
/// into `libRunAnywhereSQLitePlugin.so`, the core's symbols left for the host, which opens it
/// when an index or a queue is first opened.
@_cdecl("runanywhere_plugin_entry")
public func runanywherePluginEntry(_ registrar: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    PluginEntry.handle(registrar, name: SQLiteStorageModule().name, provides: ["rag-store", "telemetry-queue"]) {
        SQLiteStorageModule()
    }
}
