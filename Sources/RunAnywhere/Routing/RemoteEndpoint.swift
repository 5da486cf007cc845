#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a model runs when it runs remotely: an OpenAI-compatible server (vLLM,
/// llama-server, Ollama, `runanywhere serve`) and the name it knows the model by.
///
/// The API key never sits here: ``apiKeySecret`` names the entry of the SDK's
/// ``SecureStore`` that holds it, so the registry (a plain JSON file) has no secret in it.
public struct RemoteEndpoint: Sendable, Codable, Equatable {
    /// The server's base URL, up to and including `/v1`, e.g. `http://127.0.0.1:8080/v1`.
    public var baseURL: URL
    /// The model's name on that server (the `model` field of each request).
    public var remoteModelName: String
    /// The secure store's name for the API key, if the server wants one.
    public var apiKeySecret: String?
    /// Longest wait for a whole non-streamed response, or between two chunks of a stream, in seconds.
    public var timeoutSeconds: Double
    /// The API key read from the secure store for a load; never stored or encoded.
    @_spi(Backend) public var apiKey: String?

    private enum CodingKeys: String, CodingKey {
        case baseURL, remoteModelName, apiKeySecret, timeoutSeconds
    }

    /// Creates an endpoint; ``validate()`` checks it.
    public init(baseURL: URL, remoteModelName: String, apiKeySecret: String? = nil, timeoutSeconds: Double = 60) {
        self.baseURL = baseURL
        self.remoteModelName = remoteModelName
        self.apiKeySecret = apiKeySecret
        self.timeoutSeconds = timeoutSeconds
    }

    /// Decodes an endpoint; the timeout is optional in stored entries.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        baseURL = try container.decode(URL.self, forKey: .baseURL)
        remoteModelName = try container.decode(String.self, forKey: .remoteModelName)
        apiKeySecret = try container.decodeIfPresent(String.self, forKey: .apiKeySecret)
        timeoutSeconds = try container.decodeIfPresent(Double.self, forKey: .timeoutSeconds) ?? 60
    }

    /// Checks that the base URL is an absolute http(s) URL with a host and no credentials,
    /// query or fragment, that the model name is usable and the timeout positive.
    ///
    /// - Throws: `.invalidBaseURL` or `.invalidInput`, naming what is wrong.
    public func validate() throws(SDKException) {
        let text = baseURL.absoluteString
        guard let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else {
            throw SDKException(
                .invalidBaseURL,
                "The remote base URL '\(text)' is not an http(s) URL",
                recovery: "Use the server's OpenAI base URL, e.g. http://127.0.0.1:8080/v1"
            )
        }
        guard let host = components.host, !host.isEmpty else {
            throw SDKException(.invalidBaseURL, "The remote base URL '\(text)' has no host")
        }
        guard components.user == nil, components.password == nil else {
            throw SDKException(
                .invalidBaseURL,
                "The remote base URL carries credentials",
                recovery: "Keep the API key in the secure store (apiKey: or `--api-key-env`), not in the URL"
            )
        }
        guard components.query == nil, components.fragment == nil else {
            throw SDKException(.invalidBaseURL, "The remote base URL '\(text)' has a query or fragment")
        }
        let name = remoteModelName.trimmed()
        guard !name.isEmpty, name.count <= 256, !name.contains(where: \.isNewline) else {
            throw SDKException(.invalidInput, "The remote model name must be 1–256 characters on one line")
        }
        guard timeoutSeconds.isFinite, timeoutSeconds > 0 else {
            throw SDKException(.invalidInput, "The remote timeout must be a positive number of seconds")
        }
        if let apiKeySecret { try SecureStore.check(apiKeySecret) }
    }

    /// The URL of an endpoint below the base, e.g. `chat/completions`.
    package func url(_ path: String) -> URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + "/" + path) ?? baseURL
    }
}
