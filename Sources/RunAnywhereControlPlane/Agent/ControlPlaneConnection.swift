@_spi(Backend) public import RunAnywhere

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The seam between the SDK's phase 2 and a control plane: one call per operation of the
/// control-plane API, each failing with a typed `SDKException`.
///
/// `RunAnywhereControlPlane` implements it over the client generated from the API's OpenAPI
/// document; tests and other transports can implement it too. Errors carry these codes:
/// `.tokenExpired` for an expired access token (the SDK refreshes once and retries),
/// `.remoteUnauthorized` for a refused key or token, `.remoteNotFound`, `.remoteRateLimited`,
/// `.remoteServerError`, `.remoteTimeout`, `.remoteUnreachable`, `.remoteBadResponse`.
@_spi(Backend) public protocol ControlPlaneConnection: Sendable {
    /// Trades the API key for tokens.
    func authenticate(apiKey: String, deviceId: String) async throws(SDKException) -> ControlPlaneTokens
    /// Trades a refresh token for new tokens.
    func refresh(refreshToken: String) async throws(SDKException) -> ControlPlaneTokens
    /// Registers the device or updates it; `true` when it was new.
    func registerDevice(
        id: String,
        _ device: DeviceDescription,
        accessToken: String
    ) async throws(SDKException) -> Bool
    /// The device's assignments, or `nil` when they are unchanged since `etag`.
    func assignments(
        deviceId: String,
        etag: String?,
        accessToken: String
    ) async throws(SDKException) -> ModelAssignments?
    /// Uploads one batch; safe to retry with the same events.
    func uploadTelemetry(
        batchId: UUID,
        deviceId: String,
        events: [TelemetryEvent],
        accessToken: String
    ) async throws(SDKException) -> TelemetryReceipt
    /// Closes the connection's HTTP client.
    func shutdown() async
}

/// How a control-plane connection is made and paced; given by the module that offers it.
@_spi(Backend) public struct ControlPlaneSettings: Sendable {
    /// Events per telemetry upload, at most 1,000.
    public var telemetryBatchSize: Int
    /// How often queued telemetry is uploaded while the app runs.
    public var uploadInterval: Duration
    /// The longest wait between two attempts after failures (back-off doubles up to it).
    public var maximumBackoff: Duration
    /// Events kept on disk at most; the oldest go first past it.
    public var maximumQueuedEvents: Int

    /// Creates settings.
    public init(
        telemetryBatchSize: Int = 100,
        uploadInterval: Duration = .seconds(30),
        maximumBackoff: Duration = .seconds(300),
        maximumQueuedEvents: Int = 10_000
    ) {
        self.telemetryBatchSize = min(max(1, telemetryBatchSize), 1000)
        self.uploadInterval = uploadInterval
        self.maximumBackoff = maximumBackoff
        self.maximumQueuedEvents = max(1, maximumQueuedEvents)
    }
}

extension ControlPlaneSettings {
    /// Where a host configured through its environment (the CLI, the control plane's plugin)
    /// gives the seconds one control-plane request may take.
    public static let requestTimeoutVariable = "RUNANYWHERE_CONTROL_PLANE_TIMEOUT"

    /// The request timeout `environment` sets in ``requestTimeoutVariable``; nil when it sets none.
    ///
    /// - Throws: `.invalidConfiguration` for a value that is not seconds, more than 0 and at most 3600.
    public static func requestTimeout(in environment: [String: String]) throws(SDKException) -> Duration? {
        guard let text = environment[requestTimeoutVariable] else { return nil }
        guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 3600 else {
            throw SDKException(.invalidConfiguration, "$\(requestTimeoutVariable) must be seconds, 0 to 3600")
        }
        return .milliseconds(Int(seconds * 1000))
    }
}
