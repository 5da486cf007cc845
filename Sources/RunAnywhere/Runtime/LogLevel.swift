import Logging
import Synchronization

/// Log verbosity, from most to least chatty.
public enum LogLevel: String, Sendable, Codable, CaseIterable, Comparable {
    /// Everything, including the engines' own messages.
    case trace
    /// Diagnostic detail; the default in `.development`.
    case debug
    /// Notable steps such as loads and downloads; the default in `.staging`.
    case info
    /// Normal but significant conditions.
    case notice
    /// Problems the SDK worked around; the default in `.production`.
    case warning
    /// Operations that failed.
    case error
    /// Failures the SDK cannot continue after.
    case critical

    var swiftLogLevel: Logger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }

    /// Whether `lhs` is more verbose than `rhs` (`.trace` is the lowest level).
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

extension LogLevel: CustomStringConvertible {
    /// The level's name, as the original SDK prints its levels (the original's `fault` is
    /// ``critical`` here, and prints so).
    public var description: String { rawValue }

    /// The original SDK's highest level: ``critical``.
    public static var fault: LogLevel { .critical }
}
