import Foundation

/// How an ``OpenAIServer`` listens, which models it offers, and its limits.
///
/// The defaults are safe for a workstation: loopback only, no CORS, bounded bodies and queues.
public struct OpenAIServerConfiguration: Sendable, Equatable {
    /// Address to bind; loopback unless you mean to serve other machines.
    public var host: String
    /// Port to bind; 0 picks a free one (read it from ``OpenAIServer/port``).
    public var port: Int
    /// Model ids the server offers; empty offers every registered model it can serve.
    public var models: [String]
    /// Load the first offered model of each kind at start instead of on first use.
    public var preload: Bool
    /// Generations decoded together per language model (see `LLMLoadConfiguration.slots`).
    public var slots: Int
    /// Context per slot in tokens; `nil` lets the backend choose.
    public var contextLength: Int?
    /// Decoding threads; `nil` uses all cores.
    public var threads: Int?
    /// Requests that may wait beyond the running ones, per kind of model; more get 429.
    public var queueSize: Int
    /// When set, every `/v1` route needs `Authorization: Bearer <apiKey>`, however its path is
    /// spelled; `/health`, `/metrics` and `/openapi.json` stay open.
    public var apiKey: String?
    /// An origin allowed to call the server from a browser (CORS); `nil` sends no CORS headers.
    public var corsOrigin: String?
    /// Largest JSON request body in bytes.
    public var maxBodyBytes: Int
    /// Largest audio upload in bytes (OpenAI's limit is 25 MB).
    public var maxAudioBytes: Int
    /// Longest text `/v1/audio/speech` speaks, in Unicode scalars (OpenAI's limit is 4,096).
    /// Synthesis takes time in proportion to the text: lower it to bound each request's work.
    public var maxSpeechCharacters: Int

    /// Whether ``host`` is reachable from this machine only: `localhost`, 127.0.0.0/8 or `::1`.
    public var isLoopbackOnly: Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare == "localhost" || bare == "::1" || bare == "0:0:0:0:0:0:0:1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// What an operator should hear before serving with this configuration: a warning when the
    /// server listens beyond loopback with no API key, otherwise `nil`.
    public var exposureWarning: String? {
        guard apiKey == nil, !isLoopbackOnly else { return nil }
        return """
            Serving on \(host) with no API key: anyone who can reach this address can use the models. \
            Set RUNANYWHERE_API_KEY (runanywhere serve) or OpenAIServerConfiguration.apiKey.
            """
    }

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        models: [String] = [],
        preload: Bool = false,
        slots: Int = 4,
        contextLength: Int? = nil,
        threads: Int? = nil,
        queueSize: Int = 32,
        apiKey: String? = nil,
        corsOrigin: String? = nil,
        maxBodyBytes: Int = 4 << 20,
        maxAudioBytes: Int = 25 << 20,
        maxSpeechCharacters: Int = 4096
    ) {
        self.host = host
        self.port = port
        self.models = models
        self.preload = preload
        self.slots = slots
        self.contextLength = contextLength
        self.threads = threads
        self.queueSize = queueSize
        self.apiKey = apiKey
        self.corsOrigin = corsOrigin
        self.maxBodyBytes = maxBodyBytes
        self.maxAudioBytes = maxAudioBytes
        self.maxSpeechCharacters = maxSpeechCharacters
    }
}
