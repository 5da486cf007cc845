@_spi(Backend) internal import RunAnywhere

/// What the control plane answered to telemetry uploads.
public struct TelemetryReceipt: Sendable, Codable, Equatable {
    /// Events it stored for the first time.
    public var accepted: Int
    /// Events it already had from an earlier upload whose answer was lost.
    public var duplicates: Int

    /// Creates a receipt.
    public init(accepted: Int = 0, duplicates: Int = 0) {
        self.accepted = accepted
        self.duplicates = duplicates
    }

    /// The sum of two receipts.
    public static func + (lhs: Self, rhs: Self) -> Self {
        Self(accepted: lhs.accepted + rhs.accepted, duplicates: lhs.duplicates + rhs.duplicates)
    }
}
