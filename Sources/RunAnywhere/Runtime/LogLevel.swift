import Logging
import Synchronization

/// Log verbosity, from most to least chatty: the original SDK's levels (`Int` raw values
/// `debug` 0 … `fault` 4).
///
/// The engines' own progress lines (llama.cpp's hundreds per load) are `debug` lines that
/// ``LoggingConfiguration/includeEngineLogs`` switches on.
public enum LogLevel: Int, Sendable, Codable, CaseIterable, Comparable {
    /// Diagnostic detail; the default in `.development`.
    case debug = 0
    /// Notable steps such as loads and downloads; the default in `.staging`.
    case info = 1
    /// Problems the SDK worked around; the default in `.production`.
    case warning = 2
    /// Operations that failed.
    case error = 3
    /// Failures the SDK cannot continue after (swift-log's `critical`).
    case fault = 4

    /// swift-log's name for ``fault``.
    public static var critical: LogLevel { .fault }

    /// The level of a swift-log line: its `trace` is ``debug`` here, its `notice` ``info``,
    /// its `critical` ``fault``.
    package init(_ level: Logger.Level) {
        switch level {
        case .trace, .debug: self = .debug
        case .info, .notice: self = .info
        case .warning: self = .warning
        case .error: self = .error
        case .critical: self = .fault
        }
    }

    /// The swift-log level of this one (``fault`` is `critical`), whose name reports carry.
    package var swiftLogLevel: Logger.Level {
        switch self {
        case .debug: .debug
        case .info: .info
        case .warning: .warning
        case .error: .error
        case .fault: .critical
        }
    }

    /// Whether `lhs` is more verbose than `rhs` (``debug`` is the lowest level).
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
    /// Decodes the original SDK's number (how a level encodes), or a level's name as earlier
    /// releases of this SDK wrote it (`trace`, or its number −1, is ``debug`` now, `notice`
    /// ``info``, `critical` ``fault``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            guard let level = number == -1 ? .debug : LogLevel(rawValue: number) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "No log level \(number)")
            }
            self = level
            return
        }
        let name = try container.decode(String.self)
        switch name {
        case "trace": self = .debug
        case "notice": self = .info
        case "critical": self = .fault
        default:
            guard let level = LogLevel.allCases.first(where: { $0.description == name }) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "No log level named \(name)")
            }
            self = level
        }
    }
}

extension LogLevel: CustomStringConvertible {
    /// The level's name, as the original SDK prints its levels.
    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        case .fault: "fault"
        }
    }
}
