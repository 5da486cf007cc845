import Synchronization

/// How the SDK logs (the original SDK's `LoggingConfiguration`), applied with
/// ``RunAnywhere/configureLogging(_:)``.
public struct LoggingConfiguration: Sendable, Equatable, Codable {
    /// Whether lines go to the console (swift-log's handler); destinations get them either way.
    public var enableLocalLogging: Bool
    /// The lowest level logged, locally and to destinations.
    public var minLogLevel: LogLevel
    /// Whether each ``LogEntry`` a destination receives carries the device's hardware
    /// (``LogEntry/deviceInfo``).
    public var includeDeviceMetadata: Bool
    /// Whether warnings and errors are reported remotely, as ``RunAnywhere``'s
    /// `setSentryLoggingEnabled(_:)` of `RunAnywhereControlPlane` switches it for the shared
    /// instance (to its control plane). Applying a configuration switches it only when the
    /// value changes; without that module's ``BackendModule`` registered, turning it on is
    /// logged as a warning and changes nothing.
    public var enableSentryLogging: Bool
    /// Whether the engines' progress lines (llama.cpp's and whisper.cpp's own, hundreds per
    /// model load) are logged, at `debug`; off by default and in every preset. This SDK's own
    /// switch: the original logged them at `debug` always, which floods a development console.
    /// The engines' warnings and errors are logged either way.
    public var includeEngineLogs: Bool

    /// A configuration (the original SDK's labels, order and defaults; `includeEngineLogs` is
    /// this SDK's).
    public init(
        enableLocalLogging: Bool = true,
        minLogLevel: LogLevel = .info,
        includeDeviceMetadata: Bool = true,
        enableSentryLogging: Bool = false,
        includeEngineLogs: Bool = false
    ) {
        self.enableLocalLogging = enableLocalLogging
        self.minLogLevel = minLogLevel
        self.includeDeviceMetadata = includeDeviceMetadata
        self.enableSentryLogging = enableSentryLogging
        self.includeEngineLogs = includeEngineLogs
    }

    /// Decodes a configuration; a switch missing from the data takes its default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = LoggingConfiguration()
        enableLocalLogging =
            try container.decodeIfPresent(Bool.self, forKey: .enableLocalLogging) ?? defaults.enableLocalLogging
        minLogLevel = try container.decodeIfPresent(LogLevel.self, forKey: .minLogLevel) ?? defaults.minLogLevel
        includeDeviceMetadata =
            try container.decodeIfPresent(Bool.self, forKey: .includeDeviceMetadata) ?? defaults.includeDeviceMetadata
        enableSentryLogging =
            try container.decodeIfPresent(Bool.self, forKey: .enableSentryLogging) ?? defaults.enableSentryLogging
        includeEngineLogs =
            try container.decodeIfPresent(Bool.self, forKey: .includeEngineLogs) ?? defaults.includeEngineLogs
    }

    /// The original SDK's development preset: everything from `.debug` on the console, no
    /// device details, remote error reporting on (to the app's control plane, if it has one).
    public static var development: LoggingConfiguration {
        LoggingConfiguration(minLogLevel: .debug, includeDeviceMetadata: false, enableSentryLogging: true)
    }
    /// From `.info` on the console, with device details.
    public static var staging: LoggingConfiguration { LoggingConfiguration(minLogLevel: .info) }
    /// From `.warning` with device details, to destinations only: nothing on the console.
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

extension RunAnywhere {
    /// Applies a logging configuration: its level (as ``setLogLevel(_:)``), whether lines go
    /// to the console, whether entries carry the device's hardware, whether the engines'
    /// progress lines are logged, and remote error reporting when its switch changed.
    public static func configureLogging(_ configuration: LoggingConfiguration) {
        setLogLevel(configuration.minLogLevel)
        LogDestinations.isLocalEnabled = configuration.enableLocalLogging
        LogDestinations.includesDeviceInfo = configuration.includeDeviceMetadata
        SDKLogger.includesEngineLogs = configuration.includeEngineLogs
        RemoteReportingSwitch.shared.request(configuration.enableSentryLogging)
    }

    /// The logging configuration in force (the original SDK's `Logging.shared.configuration`).
    public static var loggingConfiguration: LoggingConfiguration {
        LoggingConfiguration(
            enableLocalLogging: LogDestinations.isLocalEnabled,
            minLogLevel: SDKLogger.currentLevel,
            includeDeviceMetadata: LogDestinations.includesDeviceInfo,
            enableSentryLogging: RemoteReportingSwitch.shared.isOn,
            includeEngineLogs: SDKLogger.includesEngineLogs
        )
    }

    /// Turns console logging on or off; destinations keep receiving lines.
    public static func setLocalLoggingEnabled(_ enabled: Bool) {
        LogDestinations.isLocalEnabled = enabled
    }

    /// Debug mode on logs everything from `.debug` up, on the console; off returns to `.info`
    /// with the console off, as the original SDK's (destinations keep receiving lines). The
    /// other switches stay as they are.
    public static func setDebugMode(_ enabled: Bool) {
        setLogLevel(enabled ? .debug : .info)
        setLocalLoggingEnabled(enabled)
    }
}
