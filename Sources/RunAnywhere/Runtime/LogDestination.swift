import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One log line as a ``LogDestination`` receives it (the original SDK's `LogEntry`).
public struct LogEntry: Sendable, Equatable {
    /// When it was logged.
    public var timestamp: Date
    /// Its level.
    public var level: LogLevel
    /// The logger's category (`LLM`, `Download`, …).
    public var category: String
    /// The text.
    public var message: String
    /// Its metadata, flattened to text, secrets redacted (see ``SDKLogger/redact(_:)``);
    /// `nil` when the line has none, as in the original SDK.
    public var metadata: [String: String]?
    /// The device it was logged on, when ``LoggingConfiguration/includeDeviceMetadata`` is on,
    /// as first detected for logging.
    public var deviceInfo: DeviceInfo?
    /// Where it was logged, `file:line`.
    public var source: String

    /// An entry.
    public init(
        timestamp: Date = Date(),
        level: LogLevel,
        category: String,
        message: String,
        metadata: [String: String]? = nil,
        deviceInfo: DeviceInfo? = nil,
        source: String = ""
    ) {
        self.timestamp = timestamp
        self.level = level
        self.category = category
        self.message = message
        self.metadata = metadata
        self.deviceInfo = deviceInfo
        self.source = source
    }
}

/// Somewhere the SDK's log lines go besides the console (the original SDK's
/// `LogDestination`): a file, an app's own log view, a crash reporter. Add one with
/// ``RunAnywhere/addLogDestination(_:)``; it receives every line at or above the log level,
/// whether local logging is on or not.
///
/// ```swift
/// final class Lines: LogDestination {
///     let identifier = "lines"
///     let isAvailable = true
///     let lines = Mutex<[String]>([])
///     func write(_ entry: LogEntry) { lines.withLock { $0.append(entry.message) } }
///     func flush() {}
/// }
/// ```
///
/// `write` runs on the logging thread: keep it short, and do not log from it.
public protocol LogDestination: AnyObject, Sendable {
    /// A name that identifies the destination; adding another with the same name replaces it.
    var identifier: String { get }
    /// Whether it takes lines now; lines are not offered while it is `false`.
    var isAvailable: Bool { get }
    /// Receives one line.
    func write(_ entry: LogEntry)
    /// Writes out anything buffered.
    func flush()
}

/// The destinations and the local switch ``SDKLogger`` consults for every line.
package enum LogDestinations {
    private static let destinations = Mutex<[any LogDestination]>([])
    private static let any = Atomic<Bool>(false)
    private static let local = Atomic<Bool>(true)
    private static let device = Atomic<Bool>(true)
    private static let profile = Mutex<DeviceInfo?>(nil)

    /// Whether any destination is added; cheap, so loggers skip building an entry.
    package static var isActive: Bool { any.load(ordering: .relaxed) }

    /// Whether lines go to the console.
    package static var isLocalEnabled: Bool {
        get { local.load(ordering: .relaxed) }
        set { local.store(newValue, ordering: .relaxed) }
    }

    /// Whether entries carry the device's hardware.
    package static var includesDeviceInfo: Bool {
        get { device.load(ordering: .relaxed) }
        set { device.store(newValue, ordering: .relaxed) }
    }

    /// The device an entry carries, when ``includesDeviceInfo``: detected once, at the first
    /// entry that needs it, since reading it takes file reads (and `nvidia-smi` on NVIDIA
    /// machines) that no log line should pay again. Its memory and battery figures are those
    /// of that moment.
    package static var deviceInfo: DeviceInfo? {
        guard includesDeviceInfo else { return nil }
        if let detected = profile.withLock({ $0 }) { return detected }
        // Outside the lock, so other threads' lines do not wait on the detection; two first
        // lines may both detect, and the first to finish is kept.
        let detected = DeviceInfo.current
        return profile.withLock { profile in
            if profile == nil { profile = detected }
            return profile
        }
    }

    /// Adds `destination`, replacing one with the same identifier.
    package static func add(_ destination: any LogDestination) {
        destinations.withLock { list in
            list.removeAll { $0.identifier == destination.identifier }
            list.append(destination)
            any.store(true, ordering: .relaxed)
        }
    }

    /// Removes the destination with `identifier`; returns whether there was one.
    package static func remove(identifier: String) -> Bool {
        destinations.withLock { list in
            let before = list.count
            list.removeAll { $0.identifier == identifier }
            any.store(!list.isEmpty, ordering: .relaxed)
            return list.count < before
        }
    }

    /// Offers `entry` to every available destination, outside the lock so a destination
    /// that logs cannot deadlock.
    package static func write(_ entry: LogEntry) {
        for destination in destinations.withLock({ $0 }) where destination.isAvailable {
            destination.write(entry)
        }
    }

    /// Flushes every destination.
    package static func flush() {
        for destination in destinations.withLock({ $0 }) { destination.flush() }
    }
}

extension RunAnywhere {
    /// Sends every line at or above the log level to `destination` as well, replacing a
    /// destination with the same identifier.
    public static func addLogDestination(_ destination: any LogDestination) {
        LogDestinations.add(destination)
    }

    /// Stops sending lines to the destination with `identifier`; returns whether there was one.
    @discardableResult
    public static func removeLogDestination(identifier: String) -> Bool {
        LogDestinations.remove(identifier: identifier)
    }

    /// Writes out what the destinations buffer.
    public static func flushLogs() {
        LogDestinations.flush()
    }
}
