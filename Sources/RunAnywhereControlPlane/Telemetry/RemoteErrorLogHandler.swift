import Logging
@_spi(Backend) internal import RunAnywhere

/// A swift-log handler that reports an app's own warnings and errors along with the SDK's,
/// to the instances with remote error reporting on
/// (`RunAnywhereSDK.setRemoteErrorReportingEnabled(_:sentryDSN:)`). Lines are redacted
/// like the SDK's (``TelemetryEvent/redact(_:)``); lower levels and the SDK's own loggers
/// (already reported) pass by.
///
/// ```swift
/// LoggingSystem.bootstrap { label in
///     MultiplexLogHandler([StreamLogHandler.standardError(label: label), RemoteErrorLogHandler(label: label)])
/// }
/// ```
public struct RemoteErrorLogHandler: LogHandler {
    /// The logger's label, reported as its name.
    public let label: String
    /// Metadata kept for the handler's contract; it is not reported (it may hold user data).
    public var metadata: Logger.Metadata = [:]
    /// Lines below this level are not looked at.
    public var logLevel: Logger.Level = .warning

    /// A handler for the logger `label`.
    public init(label: String) {
        self.label = label
    }

    /// Metadata of the handler; not reported.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Reports a warning or error line.
    public func log(event: LogEvent) {
        guard !label.hasPrefix(SDKLogger.labelPrefix + ".") else { return }
        RemoteErrorReporting.capture(
            level: LogLevel(event.level),
            logger: label,
            message: event.message.description,
            source: "\(event.file):\(event.line)"
        )
    }
}
