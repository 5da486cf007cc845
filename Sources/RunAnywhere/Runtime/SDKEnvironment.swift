#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the SDK runs, which decides credential rules and default log verbosity.
///
/// - ``development``: no API key needed, any base URL, debug logs.
/// - ``staging``: API key and an `https` base URL required, info logs.
/// - ``production``: API key and an `https` base URL required, warning logs.
public enum SDKEnvironment: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// Local work: no API key needed, any base URL, debug logs.
    case development
    /// Pre-release testing: API key and `https` base URL required, info logs.
    case staging
    /// Shipping apps: API key and `https` base URL required, warning logs.
    case production

    /// Whether initialization must be given an API key.
    public var requiresAPIKey: Bool { self != .development }
    /// Whether initialization must be given an `https` base URL.
    public var requiresSecureBaseURL: Bool { self != .development }

    /// The log level used unless the app sets another.
    public var defaultLogLevel: LogLevel {
        switch self {
        case .development: .debug
        case .staging: .info
        case .production: .warning
        }
    }

    /// The raw value, e.g. `development`.
    public var description: String { rawValue }
}
