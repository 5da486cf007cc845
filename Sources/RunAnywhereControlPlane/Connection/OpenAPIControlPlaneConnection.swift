import AsyncHTTPClient
internal import Foundation
import HTTPTypes
import NIOCore
import OpenAPIAsyncHTTPClient
internal import OpenAPIRuntime
@_spi(Backend) internal import RunAnywhere

/// The control-plane API over the generated client: each operation's documented responses
/// become results or typed `SDKException`s, and transport failures become
/// `.remoteUnreachable` or `.remoteTimeout`.
struct OpenAPIControlPlaneConnection: ControlPlaneConnection {
    private let client: Client
    private let http: HTTPClient
    private let baseURL: URL
    private let timeout: Duration
    private let logger = SDKLogger(category: "ControlPlane")

    init(baseURL: URL, timeout: Duration) {
        var configuration = HTTPClient.Configuration()
        let amount = TimeAmount.nanoseconds(
            timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        )
        configuration.timeout = .init(connect: min(amount, .seconds(10)), read: amount)
        configuration.redirectConfiguration = .disallow
        // An offline control plane must fail phase 2's attempt at once, not after retries.
        configuration.connectionPool.retryConnectionEstablishment = false
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.baseURL = baseURL
        self.timeout = timeout
        client = Client(
            serverURL: baseURL,
            configuration: .init(dateTranscoder: ControlPlaneDateTranscoder()),
            transport: AsyncHTTPClientTransport(configuration: .init(client: http, timeout: amount)),
            middlewares: [ResponseSizeLimit(), BearerTokenMiddleware()]
        )
    }

    func shutdown() async {
        try? await http.shutdown()
    }

    // MARK: Operations

    func authenticate(apiKey: String, deviceId: String) async throws(SDKException) -> ControlPlaneTokens {
        let output = try await call("authenticate") {
            try await client.authenticate(body: .json(.init(apiKey: apiKey, deviceId: deviceId)))
        }
        switch output {
        case .ok(let ok): return try tokens(try decode { try ok.body.json })
        case .badRequest(let r): throw error(400, try? r.body.json)
        case .unauthorized(let r): throw error(401, try? r.body.json)
        case .tooManyRequests(let r): throw error(429, try? r.body.json, retryAfter: r.headers.retryAfter)
        case .serviceUnavailable(let r): throw error(503, try? r.body.json, retryAfter: r.headers.retryAfter)
        case .undocumented(let status, _): throw undocumented(status)
        }
    }

    func refresh(refreshToken: String) async throws(SDKException) -> ControlPlaneTokens {
        let output = try await call("refresh the token") {
            try await client.refreshToken(body: .json(.init(refreshToken: refreshToken)))
        }
        switch output {
        case .ok(let ok): return try tokens(try decode { try ok.body.json })
        case .badRequest(let r): throw error(400, try? r.body.json)
        case .unauthorized(let r): throw error(401, try? r.body.json)
        case .tooManyRequests(let r): throw error(429, try? r.body.json, retryAfter: r.headers.retryAfter)
        case .serviceUnavailable(let r): throw error(503, try? r.body.json, retryAfter: r.headers.retryAfter)
        case .undocumented(let status, _): throw undocumented(status)
        }
    }

    func registerDevice(
        id: String,
        _ device: DeviceDescription,
        accessToken: String
    ) async throws(SDKException) -> Bool {
        let body = Components.Schemas.DeviceRegistration(
            sdkVersion: device.sdkVersion,
            platform: device.platform,
            os: device.os,
            osVersion: device.osVersion,
            architecture: device.architecture,
            cpu: device.cpu,
            cores: max(1, device.cores),
            memoryTotalBytes: max(0, device.memoryTotalBytes),
            gpu: device.gpu,
            appId: device.appId
        )
        let output = try await call("register the device", token: accessToken) {
            try await client.registerDevice(
                path: .init(deviceId: id),
                headers: .init(),
                body: .json(body)
            )
        }
        switch output {
        case .ok: return false
        case .created: return true
        case .badRequest(let r): throw error(400, try? r.body.json)
        case .unauthorized(let r): throw error(401, try? r.body.json)
        case .tooManyRequests(let r): throw error(429, try? r.body.json, retryAfter: r.headers.retryAfter)
        case .serviceUnavailable(let r): throw error(503, try? r.body.json, retryAfter: r.headers.retryAfter)
        case .undocumented(let status, _): throw undocumented(status)
        }
    }

    func assignments(
        deviceId: String,
        etag: String?,
        accessToken: String
    ) async throws(SDKException) -> ModelAssignments? {
        let output = try await call("fetch the model assignments", token: accessToken) {
            try await client.getAssignments(path: .init(deviceId: deviceId), headers: .init(ifNoneMatch: etag))
        }
        switch output {
        case .ok(let ok):
            let json = try decode { try ok.body.json }
            var models: [ModelAssignment] = []
            for model in json.models {
                do throws(SDKException) {
                    models.append(try ModelAssignment(wire: model))
                } catch {
                    // One bad entry must not cost the device the others.
                    logger.warning("Skipped an assignment the control plane sent: \(error.message)")
                }
            }
            return ModelAssignments(etag: json.etag, models: models)
        case .notModified: return nil
        case .unauthorized(let r): throw error(401, try? r.body.json)
        case .notFound(let r): throw error(404, try? r.body.json)
        case .tooManyRequests(let r): throw error(429, try? r.body.json, retryAfter: r.headers.retryAfter)
        case .serviceUnavailable(let r): throw error(503, try? r.body.json, retryAfter: r.headers.retryAfter)
        case .undocumented(let status, _): throw undocumented(status)
        }
    }

    func uploadTelemetry(
        batchId: UUID,
        deviceId: String,
        events: [TelemetryEvent],
        accessToken: String
    ) async throws(SDKException) -> TelemetryReceipt {
        let batch = Components.Schemas.TelemetryBatch(
            batchId: batchId.uuidString.lowercased(),
            deviceId: deviceId,
            events: events.map(Self.wire)
        )
        let output = try await call("upload telemetry", token: accessToken) {
            try await client.uploadTelemetry(body: .json(batch))
        }
        switch output {
        case .accepted(let accepted):
            let receipt = try decode { try accepted.body.json }
            return TelemetryReceipt(accepted: receipt.accepted, duplicates: receipt.duplicates)
        case .badRequest(let r): throw error(400, try? r.body.json)
        case .unauthorized(let r): throw error(401, try? r.body.json)
        case .contentTooLarge(let r): throw error(413, try? r.body.json)
        case .tooManyRequests(let r): throw error(429, try? r.body.json, retryAfter: r.headers.retryAfter)
        case .serviceUnavailable(let r): throw error(503, try? r.body.json, retryAfter: r.headers.retryAfter)
        case .undocumented(let status, _): throw undocumented(status)
        }
    }

    // MARK: Mapping

    static func wire(_ event: TelemetryEvent) -> Components.Schemas.TelemetryEvent {
        Components.Schemas.TelemetryEvent(
            eventId: event.id.uuidString.lowercased(),
            _type: .init(rawValue: event.kind.rawValue) ?? .error,
            timestamp: event.timestamp,
            modelId: event.modelId,
            metrics: event.metrics.map {
                Components.Schemas.TelemetryMetrics(
                    durationMs: $0.durationMs.map { max(0, $0) },
                    promptTokens: $0.promptTokens,
                    generatedTokens: $0.generatedTokens,
                    tokensPerSecond: $0.tokensPerSecond.map { max(0, $0) },
                    timeToFirstTokenMs: $0.timeToFirstTokenMs.map { max(0, $0) },
                    sizeBytes: $0.sizeBytes
                )
            },
            errorCode: event.errorCode,
            errorMessage: event.errorMessage,
            level: event.level.flatMap { .init(rawValue: $0) },
            logger: event.logger,
            source: event.source,
            repeats: event.repeats.map { max(0, $0) }
        )
    }

    private func tokens(_ json: Components.Schemas.TokenResponse) throws(SDKException) -> ControlPlaneTokens {
        guard json.expiresIn > 0, json.refreshExpiresIn > 0, !json.accessToken.isEmpty else {
            throw SDKException(.remoteBadResponse, "The control plane issued tokens that are already expired or empty")
        }
        let now = Date()
        return ControlPlaneTokens(
            accessToken: json.accessToken,
            accessExpiresAt: now.addingTimeInterval(TimeInterval(json.expiresIn)),
            refreshToken: json.refreshToken,
            refreshExpiresAt: now.addingTimeInterval(TimeInterval(json.refreshExpiresIn)),
            userId: json.userId.flatMap { $0.isEmpty ? nil : $0 },
            organizationId: json.organizationId.flatMap { $0.isEmpty ? nil : $0 }
        )
    }

    /// Runs one call of the generated client; what it throws is a transport or decoding
    /// failure, mapped to a typed error.
    private func call<Output: Sendable>(
        _ what: String,
        token: String? = nil,
        _ body: () async throws -> Output
    ) async throws(SDKException) -> Output {
        do {
            return try await BearerTokenMiddleware.$token.withValue(token) { try await body() }
        } catch {
            throw transportError(error, while: what)
        }
    }

    /// The body of a documented response, or `.remoteBadResponse`.
    private func decode<T>(_ body: () throws -> T) throws(SDKException) -> T {
        do {
            return try body()
        } catch {
            throw SDKException(.remoteBadResponse, "The control plane's answer is not the API's JSON: \(error)")
        }
    }

    private func transportError(_ error: any Error, while what: String) -> SDKException {
        let server = baseURL.host ?? baseURL.absoluteString
        let cause = (error as? ClientError)?.underlyingError ?? error
        if let http = cause as? HTTPClientError {
            switch http {
            case .readTimeout, .connectTimeout, .deadlineExceeded:
                return SDKException(
                    .remoteTimeout,
                    "The control plane at \(server) did not answer within \(timeout) (\(what))",
                    recovery: "The SDK works offline and tries again later"
                )
            default:
                break
            }
        }
        if cause is DecodingError || cause is ResponseSizeLimit.TooLarge || "\(cause)".contains("content type")
            || "\(cause)".contains("Content-Type")
        {
            return SDKException(
                .remoteBadResponse,
                "The control plane at \(server) answered with something that is not the API's JSON (\(what)): \(cause)"
            )
        }
        if cause is CancellationError {
            return SDKException(.remoteUnreachable, "The request to the control plane was cancelled (\(what))")
        }
        return SDKException(
            .remoteUnreachable,
            "The control plane at \(server) cannot be reached (\(what)): \(cause)",
            recovery: "The SDK works offline and tries again later"
        )
    }

    private func error(
        _ status: Int,
        _ body: Components.Schemas._Error?,
        retryAfter: Int? = nil
    ) -> SDKException {
        let code = body?.error.code ?? "http_\(status)"
        let message = "The control plane answered \(status) \(code): \(body?.error.message ?? "no detail")"
        let wait = retryAfter.map { " (retry after \($0) s)" } ?? ""
        switch status {
        case 401 where code == "token_expired": return SDKException(.tokenExpired, message)
        case 401, 403: return SDKException(.remoteUnauthorized, message, recovery: "Check the API key")
        case 404: return SDKException(.remoteNotFound, message)
        case 429: return SDKException(.remoteRateLimited, message + wait)
        case 400, 413, 422: return SDKException(.remoteRejected, message)
        default: return SDKException(.remoteServerError, message + wait)
        }
    }

    private func undocumented(_ status: Int) -> SDKException {
        if (500..<600).contains(status) {
            return SDKException(.remoteServerError, "The control plane failed with HTTP \(status)")
        }
        return SDKException(
            .remoteBadResponse,
            "The control plane answered HTTP \(status), which its API does not define"
        )
    }
}

/// Adds `Authorization: Bearer` with the access token of the call in progress: the API's
/// security scheme, which the generated operations leave to middleware.
struct BearerTokenMiddleware: ClientMiddleware {
    /// The access token of the call running in this task, if it needs one.
    @TaskLocal static var token: String?

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let token = Self.token { request.headerFields[.authorization] = "Bearer \(token)" }
        return try await next(request, body, baseURL)
    }
}
