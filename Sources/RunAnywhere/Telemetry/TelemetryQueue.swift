#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Opens (creating it if needed) the telemetry queue at a file, keeping at most this many
/// events.
@_spi(Backend) public typealias TelemetryQueueFactory =
    @Sendable (_ url: URL, _ capacity: Int) throws(SDKException) -> any TelemetryQueue

/// Telemetry events waiting for the control plane, or error reports for their collector, in a
/// file under the SDK's home.
///
/// An event is on disk once ``enqueue(_:)-([TelemetryEvent])`` returns, so it survives a crash
/// or a kill; it leaves only when ``remove(_:)`` is called after the server acknowledged it.
/// Events keep the id they were queued with: a batch sent again after a lost answer is counted
/// once by the server. Several processes may share one home (an app and the CLI): the queue
/// serializes their writes, and ``uploadLock()`` lets one of them upload at a time. Past its
/// capacity the oldest events are dropped when new ones arrive.
///
/// `RunAnywhereSQLite`'s module offers one on SQLite; a queue is registered with
/// ``ServiceRegistry/registerTelemetryQueue(name:priority:factory:)``.
@_spi(Backend) public protocol TelemetryQueue: AnyObject, Sendable {
    /// The queue's file.
    var url: URL { get }

    /// Stores events (an id already queued is ignored), dropping the oldest past the capacity.
    func enqueue(_ events: [TelemetryEvent]) throws(SDKException)

    /// The oldest events, at most `limit`. An event that no longer decodes (written by a
    /// newer SDK, or damaged) is dropped rather than blocking the queue forever.
    func oldest(_ limit: Int) throws(SDKException) -> [TelemetryEvent]

    /// Deletes acknowledged events.
    func remove(_ ids: [UUID]) throws(SDKException)

    /// Events waiting.
    func count() throws(SDKException) -> Int
}

extension TelemetryQueue {
    /// Stores one event.
    func enqueue(_ event: TelemetryEvent) throws(SDKException) { try enqueue([event]) }

    /// The file whose `flock` one uploader holds at a time.
    var uploadLockURL: URL { url.deletingPathExtension().appendingPathExtension("upload.lock") }

    /// Takes the upload lock without waiting; `nil` while another uploader (in any process) has it.
    func uploadLock() -> FileLock? { FileLock(uploadLockURL) }
}
