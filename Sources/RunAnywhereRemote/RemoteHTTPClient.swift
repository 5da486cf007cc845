import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
@_spi(Backend) import RunAnywhere

/// The HTTP side of a remote service: requests to one OpenAI-compatible server, with the
/// endpoint's timeout, the API key, retries with back-off where a request may be repeated,
/// and every failure turned into a typed ``SDKException``.
///
/// Each service owns one client; ``shutdown()`` closes its connections.
final class RemoteHTTPClient: Sendable {
    let endpoint: RemoteEndpoint
    let modelId: String
    private let client: HTTPClient
    private let logger = SDKLogger(category: "Remote")

    /// The largest non-streamed response accepted (an embedding batch is the largest).
    static let maximumBodyBytes = 64 << 20
    /// How often a request that may be repeated is tried in all.
    static let attempts = 3

    init(endpoint: RemoteEndpoint, modelId: String) {
        self.endpoint = endpoint
        self.modelId = modelId
        var configuration = HTTPClient.Configuration()
        // The read timeout bounds the silence between two reads: a whole response, or two
        // chunks of a stream; a server that hangs is noticed within it.
        let timeout = TimeAmount.milliseconds(Int64(endpoint.timeoutSeconds * 1000))
        configuration.timeout = .init(connect: min(timeout, .seconds(10)), read: timeout)
        configuration.httpVersion = .http1Only
        configuration.redirectConfiguration = .disallow
        // A refused connection fails at once, not after the connect timeout of retries: an
        // offline server must let routing fall back to this device without a wait. `send`
        // retries what may be retried itself.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func shutdown() async {
        try? await client.shutdown()
    }

    /// A request to `path` below the base URL.
    func request(_ path: String, method: HTTPMethod = .POST, json: JSONValue? = nil) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: endpoint.url(path).absoluteString)
        request.method = method
        request.headers.add(name: "Accept", value: "application/json")
        if let key = endpoint.apiKey { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json.jsonText()))
        }
        return request
    }

    /// Sends `request` and returns the body of a 2xx response.
    ///
    /// - Parameter idempotent: Retries connection failures, timeouts, 429 and 5xx with
    ///   back-off (honouring `Retry-After`); otherwise only 429 and 503, which say the
    ///   request was not processed.
    func send(_ request: HTTPClientRequest, idempotent: Bool) async throws(SDKException) -> Data {
        try await retrying(idempotent: idempotent) { () async throws(RetryableFailure) -> Data in
            let response = try await execute(request)
            let body = try await Self.collect(response.body, limit: Self.maximumBodyBytes)
            guard (200..<300).contains(response.status.code) else {
                throw httpError(response.status, body: body, retryAfter: response.headers.first(name: "Retry-After"))
            }
            return body
        }
    }

    /// Sends `request` and checks the status of a streamed response; the caller reads the
    /// body. Only 429 and 503 are retried: a stream is not repeated once it may have begun.
    func open(_ request: HTTPClientRequest) async throws(SDKException) -> HTTPClientResponse {
        try await retrying(idempotent: false) { () async throws(RetryableFailure) -> HTTPClientResponse in
            let response = try await execute(request)
            guard (200..<300).contains(response.status.code) else {
                let body = try await Self.collect(response.body, limit: 1 << 20)
                throw httpError(response.status, body: body, retryAfter: response.headers.first(name: "Retry-After"))
            }
            return response
        }
    }

    private func retrying<T>(
        idempotent: Bool,
        _ body: () async throws(RetryableFailure) -> T
    ) async throws(SDKException) -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await body()
            } catch {
                let final = error.error.code == .remoteUnauthorized || error.error.code == .generationCancelled
                guard !final, attempt < Self.attempts, idempotent || error.serverDidNotProcess else {
                    throw error.error
                }
                let delay = min(error.retryAfter ?? 0.25 * Double(1 << (attempt - 1)), 5)
                logger.info(
                    "\(endpoint.baseURL.host ?? "remote"): \(error.error.message); retry \(attempt) in \(delay) s"
                )
                try? await Task.sleep(for: .seconds(delay))
                if Task.isCancelled { throw SDKException(.generationCancelled, "Cancelled") }
            }
        }
    }

    /// Runs the request; transport failures become typed, retryable failures.
    private func execute(_ request: HTTPClientRequest) async throws(RetryableFailure) -> HTTPClientResponse {
        do {
            return try await client.execute(request, deadline: .distantFuture, logger: nil)
        } catch {
            throw RetryableFailure(error: transportError(error), retryAfter: nil, serverDidNotProcess: false)
        }
    }

    /// A transport failure as an ``SDKException``: cancelled, timed out, or unreachable.
    func transportError(_ error: any Error) -> SDKException {
        if let sdk = error as? SDKException { return sdk }
        let server = endpoint.baseURL.host ?? endpoint.baseURL.absoluteString
        if error is CancellationError || Task.isCancelled {
            return SDKException(.generationCancelled, "The request to \(server) was cancelled")
        }
        if let http = error as? HTTPClientError {
            switch http {
            case .readTimeout, .connectTimeout, .deadlineExceeded:
                return SDKException(
                    .remoteTimeout,
                    "The server at \(server) did not answer within \(endpoint.timeoutSeconds) s",
                    recovery: "Check the server, or raise the model's timeout"
                )
            case .cancelled:
                return SDKException(.generationCancelled, "The request to \(server) was cancelled")
            default:
                break
            }
        }
        if "\(error)".localizedCaseInsensitiveContains("timeout") || "\(error)".contains("timedOut") {
            return SDKException(
                .remoteTimeout,
                "The server at \(server) did not answer within \(endpoint.timeoutSeconds) s"
            )
        }
        return SDKException(
            .remoteUnreachable,
            "The server at \(server) cannot be reached: \(error)",
            recovery: "Check that the server runs and that \(endpoint.baseURL.absoluteString) is its OpenAI base URL"
        )
    }

    /// A non-2xx status as an ``SDKException`` with the server's own message, when its
    /// body is an OpenAI error (`{"error": {"message": …}}`).
    private func httpError(_ status: HTTPResponseStatus, body: Data, retryAfter: String?) -> RetryableFailure {
        let server = endpoint.baseURL.host ?? endpoint.baseURL.absoluteString
        var detail = ""
        if let text = String(data: body, encoding: .utf8), let json = try? JSONValue(parsingUntrusted: text) {
            let message =
                json["error"]?["message"]?.stringValue ?? json["error"]?.stringValue ?? json["detail"]?.stringValue
            if let message { detail = ": " + String(message.prefix(500)) }
        }
        let what = "\(server) answered HTTP \(status.code)\(detail)"
        let seconds = retryAfter.flatMap(Double.init).map { max(0, $0) }
        switch status.code {
        case 401, 403:
            return RetryableFailure(
                error: SDKException(
                    .remoteUnauthorized,
                    what,
                    recovery: endpoint.apiKeySecret.map { "Check the API key in the secure store (secret '\($0)')" }
                        ?? "The server wants an API key: register the model again with one"
                ),
                retryAfter: nil,
                serverDidNotProcess: false
            )
        case 404:
            return RetryableFailure(
                error: SDKException(
                    .remoteNotFound,
                    what,
                    recovery: "Check the base URL and that the server serves '\(endpoint.remoteModelName)'"
                ),
                retryAfter: nil,
                serverDidNotProcess: false
            )
        case 429:
            return RetryableFailure(
                error: SDKException(.remoteRateLimited, what, recovery: "Wait, or lower the request rate"),
                retryAfter: seconds,
                serverDidNotProcess: true
            )
        case 400, 413, 422:
            return RetryableFailure(
                error: SDKException(.remoteRejected, what),
                retryAfter: nil,
                serverDidNotProcess: false
            )
        case 500..<600:
            return RetryableFailure(
                error: SDKException(.remoteServerError, what),
                retryAfter: seconds,
                serverDidNotProcess: status.code == 503
            )
        default:
            return RetryableFailure(
                error: SDKException(.remoteBadResponse, what),
                retryAfter: nil,
                serverDidNotProcess: false
            )
        }
    }

    /// The whole body of a response ``open(_:)`` returned.
    func readBody(_ response: HTTPClientResponse) async throws(SDKException) -> Data {
        do {
            return try await Self.collect(response.body, limit: Self.maximumBodyBytes)
        } catch {
            throw error.error
        }
    }

    /// A body, up to `limit` bytes.
    private static func collect(
        _ body: HTTPClientResponse.Body,
        limit: Int
    ) async throws(RetryableFailure) -> Data {
        var data = Data()
        do {
            for try await buffer in body {
                guard data.count + buffer.readableBytes <= limit else {
                    throw SDKException(
                        .remoteBadResponse,
                        "The server's response is larger than \(limit >> 20) MiB"
                    )
                }
                data.append(contentsOf: buffer.readableBytesView)
            }
        } catch let error as SDKException {
            throw RetryableFailure(error: error, retryAfter: nil, serverDidNotProcess: false)
        } catch {
            throw RetryableFailure(
                error: SDKException(.remoteUnreachable, "The response was cut off: \(error)"),
                retryAfter: nil,
                serverDidNotProcess: false
            )
        }
        return data
    }

    /// A failure, and whether repeating the request may help.
    struct RetryableFailure: Error {
        var error: SDKException
        var retryAfter: Double?
        /// The server said it did not process the request (429, 503): safe to repeat any request.
        var serverDidNotProcess: Bool
    }

    /// Parses a JSON body.
    ///
    /// - Throws: `.remoteBadResponse` naming what came instead (e.g. an HTML page).
    func parse(_ body: Data, what: String) throws(SDKException) -> JSONValue {
        let text = String(decoding: body, as: UTF8.self)
        do {
            return try JSONValue(parsingUntrusted: text)
        } catch {
            let start = text.trimmed().prefix(80)
            let looksHTML = start.lowercased().hasPrefix("<!doctype") || start.lowercased().hasPrefix("<html")
            throw SDKException(
                .remoteBadResponse,
                "The server's \(what) is not JSON" + (looksHTML ? " but an HTML page" : "") + ": \"\(start)\"",
                recovery:
                    "Check that \(endpoint.baseURL.absoluteString) is an OpenAI-compatible base URL (often ending in /v1)"
            )
        }
    }
}

extension RemoteHTTPClient {
    /// A client for `model`'s endpoint, checked first.
    ///
    /// - Throws: `.invalidConfiguration` for a model without an endpoint, and the errors of
    ///   ``RemoteEndpoint/validate()``.
    static func connect(_ model: ModelInfo) throws(SDKException) -> RemoteHTTPClient {
        guard let endpoint = model.remote else {
            throw SDKException(.invalidConfiguration, "Model '\(model.id)' has no remote endpoint")
        }
        try endpoint.validate()
        return RemoteHTTPClient(endpoint: endpoint, modelId: model.id)
    }

    /// Connects to `model`'s server, checks that it serves the model, and makes a service
    /// with `make`; on any failure the client is shut down.
    static func loading<Service>(
        _ model: ModelInfo,
        _ make: (RemoteHTTPClient, RemoteModelList?) async throws -> Service
    ) async throws -> Service {
        let http = try connect(model)
        do {
            return try await make(http, try await RemoteModelList.fetch(http))
        } catch {
            await http.shutdown()
            throw error
        }
    }
}
