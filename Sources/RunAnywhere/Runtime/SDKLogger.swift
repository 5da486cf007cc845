import Logging
import Synchronization

/// The SDK's logger: a thin layer on swift-log that applies the SDK-wide level and
/// redacts secrets.
///
/// Where the log lines go is the app's choice through `LoggingSystem.bootstrap`; the SDK
/// never bootstraps the logging system itself. Metadata whose key looks like a credential
/// (`key`, `token`, `secret`, `password`, `auth`) is replaced by `[REDACTED]` before it
/// reaches any handler.
///
/// ```swift
/// RunAnywhere.setLogLevel(.info)
/// SDKLogger(category: "MyApp").info("loaded", metadata: ["apiKey": "sk-123"]) // apiKey=[REDACTED]
/// ```
public struct SDKLogger: Sendable {
    private static let level = Mutex<(current: LogLevel, explicit: Bool)>((.info, false))

    /// The level applied to every SDK logger from now on. Setting it pins it: the
    /// environment's default no longer overrides it at initialization.
    public static var currentLevel: LogLevel {
        get { level.withLock { $0.current } }
        set { level.withLock { $0 = (newValue, true) } }
    }

    /// Applies an environment's default level unless the app chose one.
    static func applyDefault(_ defaultLevel: LogLevel) {
        level.withLock { if !$0.explicit { $0.current = defaultLevel } }
    }

    /// Metadata keys containing any of these (case-insensitively) are redacted.
    public static let sensitiveKeyFragments = ["key", "token", "secret", "password", "auth"]

    /// The swift-log label prefix of all SDK loggers.
    public static let labelPrefix = "com.runanywhere"

    /// The category this logger reports under, e.g. `LLM`.
    public let category: String
    private let logger: Logger

    /// Creates a logger for a category.
    public init(category: String) {
        self.category = category
        self.logger = Logger(label: "\(Self.labelPrefix).\(category)")
    }

    /// Whether a metadata key names a credential.
    public static func isSensitive(key: String) -> Bool {
        let lowered = key.lowercased()
        return sensitiveKeyFragments.contains { lowered.contains($0) }
    }

    /// Returns `metadata` with the values of credential-like keys replaced.
    public static func redact(_ metadata: Logger.Metadata) -> Logger.Metadata {
        var out = Logger.Metadata()
        for (key, value) in metadata {
            out[key] = isSensitive(key: key) ? "[REDACTED]" : redact(value)
        }
        return out
    }

    private static func redact(_ value: Logger.MetadataValue) -> Logger.MetadataValue {
        switch value {
        case .dictionary(let dict): .dictionary(redact(dict))
        case .array(let items): .array(items.map(redact))
        default: value
        }
    }

    /// Whether the SDK-wide level lets `level` through. Engine log callbacks ask first: llama.cpp
    /// sends hundreds of debug lines per graph reserve (every LoRA switch), and turning each into
    /// a `String` that is then dropped cost 3 ms a switch.
    public static func isEnabled(_ level: LogLevel) -> Bool {
        level >= currentLevel
    }

    /// Whether the engines' progress lines are logged (at `debug`), as
    /// ``LoggingConfiguration/includeEngineLogs`` sets it. An atomic, as the other logging
    /// switches: engines ask it for each of their hundreds of lines per load.
    private static let engineProgress = Atomic<Bool>(false)

    /// Whether the engines' progress lines are logged; off by default.
    package static var includesEngineLogs: Bool {
        get { engineProgress.load(ordering: .relaxed) }
        set { engineProgress.store(newValue, ordering: .relaxed) }
    }

    /// An engine's C log line as the text to log at `level`: trimmed, or `nil` when it is
    /// empty or dropped, which is decided before any `String` is made. A line that only reports
    /// `progress` (llama.cpp's info lines) is dropped unless ``includesEngineLogs`` is on; any
    /// line is dropped when the SDK-wide level is above `level`. `keep` returns the line
    /// whatever the switches (a backend keeping its last error).
    @_spi(Backend) public static func engineLine(
        _ text: UnsafePointer<CChar>?,
        at level: LogLevel,
        progress: Bool = false,
        keep: Bool = false
    ) -> String? {
        guard let text else { return nil }
        guard keep || logsEngineLine(at: level, progress: progress) else { return nil }
        let line = String(cString: text).trimmed()
        return line.isEmpty ? nil : line
    }

    /// Whether an engine line at `level` is logged under the given switches.
    package static func logsEngineLine(
        at level: LogLevel,
        progress: Bool,
        levelEnabled: (LogLevel) -> Bool = isEnabled,
        includesProgress: Bool = includesEngineLogs
    ) -> Bool {
        (!progress || includesProgress) && levelEnabled(level)
    }

    /// Logs at `level` if the SDK-wide level lets it through.
    public func log(
        _ level: LogLevel,
        _ message: @autoclosure () -> String,
        metadata: Logger.Metadata? = nil,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        // Reported whatever the local level: it filters what this device prints, not what it reports.
        if level >= .warning, LogTap.isActive {
            LogTap.forward(level: level, logger: category, message: message(), source: "\(file):\(line)")
        }
        guard Self.isEnabled(level) else { return }
        if LogDestinations.isActive {
            LogDestinations.write(
                LogEntry(
                    level: level,
                    category: category,
                    message: message(),
                    metadata: metadata.flatMap { $0.isEmpty ? nil : Self.redact($0).mapValues(\.description) },
                    deviceInfo: LogDestinations.deviceInfo,
                    source: "\(file):\(line)"
                )
            )
        }
        guard LogDestinations.isLocalEnabled else { return }
        var logger = self.logger
        logger.logLevel = Self.currentLevel.swiftLogLevel
        logger.log(
            level: level.swiftLogLevel,
            "\(message())",
            metadata: metadata.map(Self.redact),
            source: "RunAnywhere",
            file: file,
            function: function,
            line: line
        )
    }

    /// Logs a debug message.
    public func debug(
        _ message: @autoclosure () -> String,
        metadata: Logger.Metadata? = nil,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        log(.debug, message(), metadata: metadata, file: file, function: function, line: line)
    }

    /// Logs an informational message.
    public func info(
        _ message: @autoclosure () -> String,
        metadata: Logger.Metadata? = nil,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        log(.info, message(), metadata: metadata, file: file, function: function, line: line)
    }

    /// Logs a warning.
    public func warning(
        _ message: @autoclosure () -> String,
        metadata: Logger.Metadata? = nil,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        log(.warning, message(), metadata: metadata, file: file, function: function, line: line)
    }

    /// Logs an error.
    public func error(
        _ message: @autoclosure () -> String,
        metadata: Logger.Metadata? = nil,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        log(.error, message(), metadata: metadata, file: file, function: function, line: line)
    }
}

// The original SDK's loggers and calls, each ending in ``SDKLogger/log(_:_:metadata:file:function:line:)``.
extension SDKLogger {
    /// The SDK's general logger (category `RunAnywhere`).
    public static let shared = SDKLogger(category: "RunAnywhere")
    /// Text generation's logger.
    public static let llm = SDKLogger(category: "LLM")
    /// Speech recognition's logger.
    public static let stt = SDKLogger(category: "STT")
    /// Speech synthesis's logger.
    public static let tts = SDKLogger(category: "TTS")
    /// Downloads' logger.
    public static let download = SDKLogger(category: "Download")
    /// The model registry's logger.
    public static let models = SDKLogger(category: "Models")

    /// Logs a fault: ``LogLevel/fault``.
    public func fault(
        _ message: @autoclosure () -> String,
        metadata: Logger.Metadata? = nil,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        log(.fault, message(), metadata: metadata, file: file, function: function, line: line)
    }

    /// Logs a debug message with the original SDK's untyped metadata (see ``metadata(_:)``).
    @_disfavoredOverload
    public func debug(
        _ message: @autoclosure () -> String,
        metadata: [String: Any]?,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        log(.debug, message(), untyped: metadata, file: file, function: function, line: line)
    }

    /// Logs an informational message with the original SDK's untyped metadata (see ``metadata(_:)``).
    @_disfavoredOverload
    public func info(
        _ message: @autoclosure () -> String,
        metadata: [String: Any]?,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        log(.info, message(), untyped: metadata, file: file, function: function, line: line)
    }

    /// Logs a warning with the original SDK's untyped metadata (see ``metadata(_:)``).
    @_disfavoredOverload
    public func warning(
        _ message: @autoclosure () -> String,
        metadata: [String: Any]?,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        log(.warning, message(), untyped: metadata, file: file, function: function, line: line)
    }

    /// Logs an error with the original SDK's untyped metadata (see ``metadata(_:)``).
    @_disfavoredOverload
    public func error(
        _ message: @autoclosure () -> String,
        metadata: [String: Any]?,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        log(.error, message(), untyped: metadata, file: file, function: function, line: line)
    }

    /// Logs a fault with the original SDK's untyped metadata (see ``metadata(_:)``).
    @_disfavoredOverload
    public func fault(
        _ message: @autoclosure () -> String,
        metadata: [String: Any]?,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        log(.fault, message(), untyped: metadata, file: file, function: function, line: line)
    }

    /// ``log(_:_:metadata:file:function:line:)`` with untyped metadata, converted only for a
    /// line that goes somewhere: one the level keeps, or a warning and above, which `log`
    /// reports whatever the level.
    private func log(
        _ level: LogLevel,
        _ message: @autoclosure () -> String,
        untyped metadata: [String: Any]?,
        file: String,
        function: String,
        line: UInt
    ) {
        guard level >= .warning || Self.isEnabled(level) else { return }
        log(level, message(), metadata: metadata.map(Self.metadata), file: file, function: function, line: line)
    }

    /// The original SDK's untyped metadata as swift-log's: strings, arrays and dictionaries
    /// keep their shape, any other value becomes its description.
    ///
    /// The overloads that take it are disfavoured, so a literal that swift-log's type accepts
    /// keeps its typed values; they serve metadata swift-log cannot type, such as `["count": 3]`.
    public static func metadata(_ values: [String: Any]) -> Logger.Metadata {
        values.mapValues(metadataValue)
    }

    private static func metadataValue(_ value: Any) -> Logger.MetadataValue {
        switch value {
        case let value as Logger.MetadataValue: value
        case let value as String: .string(value)
        case let value as [Any]: .array(value.map(metadataValue))
        case let value as [String: Any]: .dictionary(metadata(value))
        default: .string(String(describing: value))
        }
    }

    /// Logs an error value at error level, with `additionalInfo` as metadata; an
    /// ``SDKException`` adds its code and category.
    public func logError(
        _ error: any Error,
        additionalInfo: [String: String] = [:],
        file: String = #fileID,
        line: UInt = #line,
        function: String = #function
    ) {
        var metadata = Logger.Metadata()
        for (key, value) in additionalInfo { metadata[key] = .string(value) }
        if let exception = error as? SDKException {
            metadata["error_code"] = .string(exception.code.rawValue)
            metadata["error_category"] = .string(exception.category.rawValue)
        }
        log(.error, "\(error)", metadata: metadata, file: file, function: function, line: line)
    }

    /// Logs an error value at error level with a line of extra information (the original
    /// SDK's `logError(_:additionalInfo:file:line:function:)`, whose information is text).
    public func logError(
        _ error: any Error,
        additionalInfo: String?,
        file: String = #fileID,
        line: UInt = #line,
        function: String = #function
    ) {
        let info = additionalInfo.map { ["additional_info": $0] } ?? [:]
        logError(error, additionalInfo: info, file: file, line: line, function: function)
    }
}
