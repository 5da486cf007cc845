/// A failure a ``ControlPlaneServer`` can be told to show, for testing how clients cope.
public enum ControlPlaneFault: String, Sendable, CaseIterable {
    /// Answers normally.
    case none
    /// Answers every call with 503 and `Retry-After: 1`.
    case unavailable
    /// Accepts every connection and never answers, until the fault is lifted.
    case hang
    /// Never answers telemetry uploads (and stores nothing); the rest works.
    case hangTelemetry = "hang-telemetry"
    /// Stores uploaded telemetry, then never answers: the client cannot know it was stored.
    case storeTelemetryThenHang = "store-telemetry-then-hang"
}
