@_spi(Backend) public import RunAnywhere

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A Sentry DSN, `https://PUBLIC_KEY@HOST[:PORT][/PATH]/PROJECT_ID`: where error reports go,
/// for Sentry itself or any collector that takes Sentry's envelopes (GlitchTip, a relay).
public struct SentryDSN: Sendable, Equatable, CustomStringConvertible {
    /// The DSN as given.
    public let url: URL
    /// The project's public key (`sentry_key`).
    public let publicKey: String
    /// The project's id.
    public let projectId: String
    /// Where envelopes are POSTed: `SCHEME://HOST[:PORT][/PATH]/api/PROJECT_ID/envelope/`.
    public let envelopeURL: URL

    /// Parses a DSN.
    ///
    /// - Throws: `.invalidConfiguration` for a DSN that is not http(s), has no public key or
    ///   no project id.
    public init(_ text: String) throws(SDKException) {
        let trimmed = text.trimmed()
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
            let key = components.user, !key.isEmpty, let url = components.url
        else {
            throw SDKException(
                .invalidConfiguration,
                "The Sentry DSN is not of the form https://PUBLIC_KEY@HOST/PROJECT_ID",
                recovery: "Copy the DSN from the project's Client Keys settings"
            )
        }
        var path = components.path.split(separator: "/").map(String.init)
        guard let project = path.popLast(), !project.isEmpty else {
            throw SDKException(.invalidConfiguration, "The Sentry DSN names no project id")
        }
        var endpoint = URLComponents()
        endpoint.scheme = scheme
        endpoint.host = host
        endpoint.port = components.port
        endpoint.path = "/" + (path + ["api", project, "envelope"]).joined(separator: "/") + "/"
        guard let envelope = endpoint.url else {
            throw SDKException(.invalidConfiguration, "The Sentry DSN gives no usable envelope URL")
        }
        self.url = url
        self.publicKey = key
        self.projectId = project
        self.envelopeURL = envelope
    }

    /// The DSN without its key, for logs.
    public var description: String { "\(envelopeURL.absoluteString) (project \(projectId))" }

    /// The `X-Sentry-Auth` header of every request.
    var authHeader: String {
        "Sentry sentry_version=7, sentry_key=\(publicKey), sentry_client=\(SentryEnvelope.clientName)/\(RunAnywhere.version)"
    }
}
