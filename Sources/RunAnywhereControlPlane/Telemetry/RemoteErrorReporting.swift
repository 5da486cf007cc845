@_spi(Backend) internal import RunAnywhere
import Synchronization

#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// Routes the warning and error lines logged in this process to the SDK instances that
/// report them (`RunAnywhereSDK.setRemoteErrorReportingEnabled(_:sentryDSN:)`).
///
/// Lines are redacted (``TelemetryEvent/redact(_:)``) before they are queued. A line identical
/// to one reported in the last minute (same level, logger, source and redacted text) is
/// folded: it is counted, and the next one reported after the minute carries the count.
enum RemoteErrorReporting {
    /// One reporting instance: its queues, and how to wake its uploaders.
    struct Sink: Sendable {
        let queues: [TelemetryQueue]
        let wake: @Sendable () -> Void
    }

    private struct State: Sendable {
        var sinks: [UUID: Sink] = [:]
        var recent: [String: (reported: ContinuousClock.Instant, folded: Int)] = [:]
    }

    private static let state = Mutex(State())
    /// Identical lines within this interval are folded into one report.
    static let foldInterval: Duration = .seconds(60)
    /// Categories whose lines are never reported: the reporting machinery's own (a failure
    /// to queue a report must not queue another).
    static let quietCategories: Set<String> = ["Telemetry", "ErrorReporting"]

    /// Whether any instance reports; cheap, so loggers can skip building a line. The core's log
    /// tap is installed exactly while there is a sink, so it says.
    static var isActive: Bool { LogTap.isActive }

    static func add(_ sink: Sink) -> UUID {
        let id = UUID()
        // Under the lock, so a concurrent `remove` cannot take the tap away from a new sink.
        state.withLock { state in
            state.sinks[id] = sink
            // The SDK's own lines reach `capture` through the core's log tap.
            LogTap.install { level, logger, message, source in
                capture(level: level, logger: logger, message: message, source: source)
            }
        }
        return id
    }

    static func remove(_ id: UUID) {
        state.withLock { state in
            state.sinks[id] = nil
            if state.sinks.isEmpty { LogTap.install(nil) }
        }
    }

    /// Queues a report of one line with every reporting instance; `critical` and `error`
    /// and `warning` lines only.
    static func capture(level: LogLevel, logger: String, message: String, source: String) {
        guard level >= .warning, isActive, !quietCategories.contains(logger) else { return }
        // The event's initializer redacts the line; the fold key is the redacted text.
        var event = TelemetryEvent(kind: .log, errorMessage: message)
        event.level = level.swiftLogLevel.rawValue
        event.logger = logger
        event.source = source
        let key = "\(level)|\(logger)|\(source)|\(event.errorMessage ?? "")"
        let now = ContinuousClock.now
        let (sinks, repeats) = state.withLock { state -> ([Sink], Int?) in
            if let seen = state.recent[key], seen.reported.duration(to: now) < foldInterval {
                state.recent[key]?.folded += 1
                return ([], nil)
            }
            let folded = state.recent[key]?.folded ?? 0
            state.recent[key] = (now, 0)
            if state.recent.count > 1_000 {
                state.recent = state.recent.filter { $0.value.reported.duration(to: now) < foldInterval }
            }
            return (Array(state.sinks.values), folded)
        }
        guard !sinks.isEmpty else { return }
        event.repeats = repeats.flatMap { $0 > 0 ? $0 : nil }
        for sink in sinks {
            for queue in sink.queues { try? queue.enqueue(event) }
            sink.wake()
        }
    }
}
