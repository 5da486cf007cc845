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

// The original SDK's predicates, each defined by this SDK's rules above.
extension SDKEnvironment {
    /// The environments an app ships with (the original SDK's list): all of them.
    public static var deployableCases: [SDKEnvironment] { allCases }

    /// Whether this is ``production``.
    public var isProduction: Bool { self == .production }
    /// Whether this is ``staging``, the pre-release testing environment.
    public var isTesting: Bool { self == .staging }
    /// The original SDK's name for ``requiresSecureBaseURL``: a base URL must be given.
    public var requiresBackendURL: Bool { requiresSecureBaseURL }
    /// The original SDK's name for ``requiresAPIKey``.
    public var requiresAuthentication: Bool { requiresAPIKey }
    /// Whether telemetry is sent in this environment (with a control plane): not in development.
    public var shouldSendTelemetry: Bool { self != .development }
    /// Whether the SDK syncs with a backend (with a control plane): not in development.
    public var shouldSyncWithBackend: Bool { self != .development }
    /// Whether the original SDK would use mock data: in development. This SDK never invents
    /// data; it only reports the environment.
    public var useMockData: Bool { self == .development }
    /// Whether this build was compiled for debugging.
    public static var isDebugBuild: Bool {
        #if DEBUG
        true
        #else
        false
        #endif
    }
    /// Whether this environment suits this build: production needs a release build.
    public var isCompatibleWithCurrentBuild: Bool { !(Self.isDebugBuild && self == .production) }
    /// The raw value as the wire carries it.
    public var wireString: String { rawValue }
    /// The environment of a wire string, case-insensitively; `nil` when unknown.
    public static func from(wireString: String) -> SDKEnvironment? { SDKEnvironment(rawValue: wireString.lowercased()) }
}
