#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The initialization parameters of an SDK instance (given to `RunAnywhere.initialize` or
/// ``RunAnywhereSDK/init(home:environment:apiKey:baseURL:modules:)``), validated.
public struct SDKInitParams: Sendable, Equatable {
    /// Shortest API key accepted outside development.
    public static let minimumAPIKeyLength = 8

    /// The API key, or `nil` in development when none was given.
    public let configuredAPIKey: String?
    /// The backend base URL, or `nil` in development when none was given.
    public let configuredBaseURL: URL?
    /// The environment.
    public let environment: SDKEnvironment

    /// Validates and creates the parameters; the environment is production unless told
    /// otherwise, as in the original SDK.
    ///
    /// - Throws: ``SDKException`` with `.invalidAPIKey` or `.invalidBaseURL` when the
    ///   environment's rules are not met.
    public init(apiKey: String?, baseURL: String?, environment: SDKEnvironment = .production) throws(SDKException) {
        let key = apiKey?.trimmed()
        let urlText = baseURL?.trimmed()
        if environment.requiresAPIKey {
            guard let key, !key.isEmpty else {
                throw SDKException(
                    .invalidAPIKey,
                    "An API key is required in the \(environment) environment",
                    recovery: "Pass apiKey:, or use environment: .development for local work"
                )
            }
            guard key.count >= Self.minimumAPIKeyLength else {
                throw SDKException(
                    .invalidAPIKey,
                    "The API key is too short (\(key.count) characters, at least \(Self.minimumAPIKeyLength) expected)"
                )
            }
        }
        var url: URL?
        if let urlText, !urlText.isEmpty {
            guard let parsed = URL(string: urlText), let scheme = parsed.scheme?.lowercased(),
                ["http", "https"].contains(scheme), parsed.host?.isEmpty == false
            else {
                throw SDKException(.invalidBaseURL, "The base URL '\(urlText)' is not a valid http(s) URL")
            }
            url = parsed
        }
        if environment.requiresSecureBaseURL {
            guard let url else {
                throw SDKException(.invalidBaseURL, "A base URL is required in the \(environment) environment")
            }
            guard url.scheme?.lowercased() == "https" else {
                throw SDKException(
                    .invalidBaseURL,
                    "The \(environment) environment requires an https base URL, got '\(url.absoluteString)'"
                )
            }
        }
        self.configuredAPIKey = (key?.isEmpty ?? true) ? nil : key
        self.configuredBaseURL = url
        self.environment = environment
    }
}

// The original SDK's initializers, ending in the validating one above.
extension SDKInitParams {
    /// Validates and creates the parameters from a `URL` (the original SDK's overload,
    /// production unless told otherwise).
    public init(apiKey: String, baseURL: URL, environment: SDKEnvironment = .production) throws(SDKException) {
        try self.init(apiKey: apiKey, baseURL: baseURL.absoluteString, environment: environment)
    }

    /// Development parameters with an API key and no base URL (the original SDK's
    /// shortcut); development accepts any key, an empty one included.
    public init(forDevelopmentWithAPIKey apiKey: String = "") {
        let key = apiKey.trimmed()
        self.configuredAPIKey = key.isEmpty ? nil : key
        self.configuredBaseURL = nil
        self.environment = .development
    }
}

// The original SDK's fields, which are never missing: development without a key or URL reads
// as an empty key and the original's placeholder URL.
extension SDKInitParams {
    /// The URL the original SDK reports in development when none was given; nothing is sent to it.
    public static let developmentPlaceholderURL = URL(string: "https://dev.runanywhere.local")!

    /// The API key as the original SDK has it: empty when none was given
    /// (``configuredAPIKey`` tells the two apart).
    public var apiKey: String { configuredAPIKey ?? "" }

    /// The base URL as the original SDK has it: ``developmentPlaceholderURL`` when none was
    /// given (``configuredBaseURL`` tells the two apart).
    public var baseURL: URL { configuredBaseURL ?? Self.developmentPlaceholderURL }
}
