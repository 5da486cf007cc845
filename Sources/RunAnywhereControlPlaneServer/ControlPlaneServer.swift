public import Foundation
import Hummingbird
import Logging
import OpenAPIHummingbird
internal import RunAnywhere
public import RunAnywhereControlPlane
import RunAnywhereHTTPServing

/// The reference RunAnywhere control plane: the API of `openapi.yaml` (authentication with
/// refresh, idempotent device registration, model assignments with etags, deduplicated
/// telemetry) on Hummingbird, over the server stubs generated from the same document.
///
/// It keeps everything in memory. Tests start it in-process; `runanywhere control-plane
/// serve` runs it as a process. Its faults (``fault``) and ``expireAccessTokens()`` let tests
/// show how clients cope with a server that is down, hangs, or ends their session.
///
/// ```swift
/// let server = try await ControlPlaneServer.start(
///     configuration: ControlPlaneServerConfiguration(port: 0, apiKeys: ["ra-test-key-1"]))
/// let sdk = try RunAnywhereSDK(home: home, apiKey: "ra-test-key-1", baseURL: server.baseURL.absoluteString,
///                              modules: [ControlPlaneModule()])
/// try await sdk.completeServicesInitialization()
/// print(server.statistics.devices)   // 1
/// await server.stop()
/// ```
public final class ControlPlaneServer: Sendable {
    /// The address it listens on.
    public let host: String
    /// The port it listens on.
    public let port: Int
    private let state: ControlPlaneState
    private let run: HTTPServerRun

    private init(host: String, state: ControlPlaneState, run: HTTPServerRun) {
        self.host = host
        self.port = run.port
        self.state = state
        self.run = run
    }

    /// The base URL clients use.
    public var baseURL: URL { URL(string: "http://\(host.contains(":") ? "[\(host)]" : host):\(port)")! }

    /// Starts serving; returns once the port is bound.
    ///
    /// - Throws: `.invalidConfiguration` for no API key or a port that cannot be bound.
    public static func start(
        configuration: ControlPlaneServerConfiguration,
        logger: Logger = Logger(label: "runanywhere.control-plane")
    ) async throws -> ControlPlaneServer {
        guard !configuration.apiKeys.isEmpty, !configuration.apiKeys.contains("") else {
            throw SDKException(.invalidConfiguration, "The control plane needs at least one non-empty API key")
        }
        let state = ControlPlaneState(configuration: configuration)
        let router = Router()
        router.add(middleware: ControlPlaneBodyLimit())
        try ControlPlaneHandler(state: state).registerHandlers(
            on: router,
            configuration: .init(dateTranscoder: ControlPlaneDateTranscoder()),
            middlewares: [ControlPlaneMalformedRequests(), ControlPlaneAuthMiddleware(state: state)]
        )
        guard
            let run = await HTTPServerRun.start(
                router.buildResponder(),
                host: configuration.host,
                port: configuration.port,
                logger: logger
            )
        else {
            throw SDKException(
                .invalidConfiguration,
                "Could not listen on \(configuration.host):\(configuration.port)",
                recovery: "Is the port in use? Pick another with --port, or 0 for any free port"
            )
        }
        return ControlPlaneServer(host: configuration.host, state: state, run: run)
    }

    /// Stops serving; requests in progress (a hanging one included) are cancelled.
    public func stop() async {
        state.memory.withLock { $0.fault = .none }
        await run.stop(gracePeriod: .seconds(5))
    }

    // MARK: State and faults

    /// The failure it shows; `.none` to answer normally.
    public var fault: ControlPlaneFault {
        get { state.fault }
        set { state.memory.withLock { $0.fault = newValue } }
    }

    /// What it has seen so far.
    public var statistics: ControlPlaneStatistics { state.memory.withLock { $0.statistics } }

    /// The ids of the telemetry events stored, in arrival order, each once.
    public var storedEventIds: [String] { state.memory.withLock { $0.eventOrder } }

    /// The types of the stored telemetry events, in arrival order.
    public var storedEventTypes: [String] {
        state.memory.withLock { memory in memory.eventOrder.compactMap { memory.events[$0]?._type.rawValue } }
    }

    /// Everything stored of the telemetry events, as JSON lines, for checking what left the device.
    public var storedEventsJSON: [String] {
        state.memory.withLock { memory in
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            return memory.eventOrder.compactMap { id in
                memory.events[id].flatMap { try? encoder.encode($0) }.flatMap { String(data: $0, encoding: .utf8) }
            }
        }
    }

    /// Ends every access token now: the next call with one gets 401 `token_expired`.
    public func expireAccessTokens() {
        state.memory.withLock { memory in
            for key in memory.accessTokens.keys { memory.accessTokens[key]?.expiresAt = .now - .seconds(1) }
        }
    }

    /// Ends every refresh token now, so only the API key gets new tokens.
    public func revokeRefreshTokens() {
        state.memory.withLock { $0.refreshTokens.removeAll() }
    }

    /// Replaces the models every device is assigned; their etag changes.
    public func setAssignments(_ assignments: [ModelAssignment]) {
        state.memory.withLock {
            $0.configuration.assignments = assignments
            $0.assignmentsVersion += 1
        }
    }

    /// The operation ids of the requests arriving from now on (`authenticate`,
    /// `registerDevice`, `uploadTelemetry`, …), before they are answered, and
    /// `uploadTelemetry.stored` once a batch's events are stored: lets a test wait for a
    /// request instead of sleeping.
    public func arrivingRequests() -> AsyncStream<String> { state.watch() }
}
