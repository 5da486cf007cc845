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
    /// Where it was logged, `file:line`.
    public var source: String

    /// An entry.
    public init(
        timestamp: Date = Date(),
        level: LogLevel,
        category: String,
        message: String,
        metadata: [String: String]? = nil,
        source: String = ""
    ) {
        self.timestamp = timestamp
        self.level = level
        self.category = category
        self.message = message
        self.metadata = metadata
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

/// How the SDK logs (the original SDK's `LoggingConfiguration`).
public struct LoggingConfiguration: Sendable, Equatable, Codable {
    /// The lowest level logged, locally and to destinations.
    public var minLogLevel: LogLevel
    /// Whether lines go to the console (swift-log's handler); destinations get them either way.
    public var enableLocalLogging: Bool

    /// A configuration (the original SDK's labels, in its order).
    public init(enableLocalLogging: Bool = true, minLogLevel: LogLevel = .info) {
        self.minLogLevel = minLogLevel
        self.enableLocalLogging = enableLocalLogging
    }

    /// Everything from `.debug`, on the console (the original SDK's development preset).
    public static var development: LoggingConfiguration { LoggingConfiguration(minLogLevel: .debug) }
    /// From `.info`, on the console.
    public static var staging: LoggingConfiguration { LoggingConfiguration(minLogLevel: .info) }
    /// From `.warning`, to destinations only: nothing on the console.
    public static var production: LoggingConfiguration {
        LoggingConfiguration(enableLocalLogging: false, minLogLevel: .warning)
    }

    /// The preset of `environment`.
    public static func forEnvironment(_ environment: SDKEnvironment) -> LoggingConfiguration {
        switch environment {
        case .development: .development
        case .staging: .staging
        case .production: .production
        }
    }
}

/// The destinations and the local switch ``SDKLogger`` consults for every line.
package enum LogDestinations {
    private static let destinations = Mutex<[any LogDestination]>([])
    private static let any = Atomic<Bool>(false)
    private static let local = Atomic<Bool>(true)

    /// Whether any destination is added; cheap, so loggers skip building an entry.
    package static var isActive: Bool { any.load(ordering: .relaxed) }

    /// Whether lines go to the console.
    package static var isLocalEnabled: Bool {
        get { local.load(ordering: .relaxed) }
        set { local.store(newValue, ordering: .relaxed) }
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
    /// Applies a logging configuration: its level (as ``setLogLevel(_:)``) and whether lines
    /// go to the console.
    public static func configureLogging(_ configuration: LoggingConfiguration) {
        setLogLevel(configuration.minLogLevel)
        LogDestinations.isLocalEnabled = configuration.enableLocalLogging
    }

    /// Turns console logging on or off; destinations keep receiving lines.
    public static func setLocalLoggingEnabled(_ enabled: Bool) {
        LogDestinations.isLocalEnabled = enabled
    }

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

    /// Debug mode on logs everything from `.debug` up to the console; off returns to `.info`.
    public static func setDebugMode(_ enabled: Bool) {
        configureLogging(LoggingConfiguration(enableLocalLogging: true, minLogLevel: enabled ? .debug : .info))
    }

    /// Writes out what the destinations buffer.
    public static func flushLogs() {
        LogDestinations.flush()
    }
}
