/// What a ``ControlPlaneServer`` has seen, for tests and `runanywhere control-plane serve`.
public struct ControlPlaneStatistics: Sendable, Equatable {
    /// Successful authentications with an API key.
    public var authentications = 0
    /// Successful refreshes.
    public var refreshes = 0
    /// Calls refused for an expired access token.
    public var expiredTokenRefusals = 0
    /// Device registrations, new or repeated.
    public var registrations = 0
    /// Distinct devices registered.
    public var devices = 0
    /// Assignment fetches answered (200 or 304).
    public var assignmentFetches = 0
    /// Telemetry batches received (stored or not).
    public var telemetryBatches = 0
    /// Events stored, each counted once.
    public var eventsStored = 0
    /// Events received again after being stored.
    public var duplicateEvents = 0

    /// Creates empty statistics.
    public init() {}
}
