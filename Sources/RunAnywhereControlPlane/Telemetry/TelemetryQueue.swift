internal import Foundation
internal import GRDB
@_spi(Backend) internal import RunAnywhere

/// Telemetry events waiting for the control plane, or error reports for their collector, in an
/// SQLite file under the SDK's home.
///
/// An event is on disk once ``enqueue(_:)`` returns, so it survives a crash or a kill; it
/// leaves only when ``remove(_:)`` is called after the server acknowledged it. Events keep
/// the id they were queued with: a batch sent again after a lost answer is counted once by
/// the server. Several processes may share one home (an app and the CLI): SQLite's WAL
/// serializes their writes, and ``uploadLock()`` lets one of them upload at a time. Past its
/// capacity the oldest events are dropped when new ones arrive.
final class TelemetryQueue: Sendable {
    let url: URL
    /// Past this many events, the oldest are dropped when new ones arrive.
    let capacity: Int
    private let pool: DatabasePool
    private let logger = SDKLogger(category: "Telemetry")

    /// Opens (creating it if needed) the queue at `url`.
    ///
    /// - Throws: `.fileSystemError` when the file cannot be opened or is not a queue.
    init(url: URL, capacity: Int = 10_000) throws(SDKException) {
        self.url = url
        self.capacity = max(1, capacity)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "telemetry"
        do {
            pool = try DatabasePool(path: url.path, configuration: configuration)
            try pool.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS events(
                            seq INTEGER PRIMARY KEY AUTOINCREMENT,
                            id TEXT NOT NULL UNIQUE,
                            body BLOB NOT NULL
                        )
                        """
                )
            }
        } catch {
            throw SDKException(.fileSystemError, "Cannot open the telemetry queue at \(url.path): \(error)")
        }
    }

    /// Stores events (an id already queued is ignored), dropping the oldest past ``capacity``.
    func enqueue(_ events: [TelemetryEvent]) throws(SDKException) {
        guard !events.isEmpty else { return }
        let encoder = JSONEncoder()
        do {
            let rows = try events.map { ($0.id.uuidString.lowercased(), try encoder.encode($0)) }
            let dropped = try pool.write { db -> Int in
                for (id, body) in rows {
                    try db.execute(sql: "INSERT OR IGNORE INTO events(id, body) VALUES (?, ?)", arguments: [id, body])
                }
                try db.execute(
                    sql: "DELETE FROM events WHERE seq <= (SELECT MAX(seq) FROM events) - ?",
                    arguments: [capacity]
                )
                return db.changesCount
            }
            if dropped > 0 { logger.warning("Telemetry queue full: dropped the \(dropped) oldest events") }
        } catch {
            throw SDKException(.fileSystemError, "Cannot queue telemetry in \(url.path): \(error)")
        }
    }

    /// The oldest events, at most `limit`. A row that no longer decodes (written by a newer
    /// SDK, or damaged) is deleted rather than blocking the queue forever.
    func oldest(_ limit: Int) throws(SDKException) -> [TelemetryEvent] {
        let decoder = JSONDecoder()
        do {
            let rows = try pool.read { db in
                try Row.fetchAll(db, sql: "SELECT id, body FROM events ORDER BY seq LIMIT ?", arguments: [limit])
            }
            var events: [TelemetryEvent] = []
            var broken: [String] = []
            for row in rows {
                let body: Data = row["body"]
                if let event = try? decoder.decode(TelemetryEvent.self, from: body) {
                    events.append(event)
                } else {
                    broken.append(row["id"])
                }
            }
            if !broken.isEmpty {
                logger.warning("Dropped \(broken.count) telemetry events that could not be read")
                try removeIds(broken)
            }
            return events
        } catch {
            throw SDKException(.fileSystemError, "Cannot read the telemetry queue at \(url.path): \(error)")
        }
    }

    /// Deletes acknowledged events.
    func remove(_ ids: [UUID]) throws(SDKException) {
        try removeIds(ids.map { $0.uuidString.lowercased() })
    }

    private func removeIds(_ ids: [String]) throws(SDKException) {
        guard !ids.isEmpty else { return }
        do {
            try pool.write { db in
                for id in ids { try db.execute(sql: "DELETE FROM events WHERE id = ?", arguments: [id]) }
            }
        } catch {
            throw SDKException(.fileSystemError, "Cannot update the telemetry queue at \(url.path): \(error)")
        }
    }

    /// Events waiting.
    func count() throws(SDKException) -> Int {
        do {
            return try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM events") ?? 0 }
        } catch {
            throw SDKException(.fileSystemError, "Cannot read the telemetry queue at \(url.path): \(error)")
        }
    }

    /// Stores one event.
    func enqueue(_ event: TelemetryEvent) throws(SDKException) { try enqueue([event]) }

    /// The file whose `flock` one uploader holds at a time.
    var uploadLockURL: URL { url.deletingPathExtension().appendingPathExtension("upload.lock") }

    /// Takes the upload lock without waiting; `nil` while another uploader (in any process) has it.
    func uploadLock() -> FileLock? { FileLock(uploadLockURL) }
}
