@_spi(Backend) public import RunAnywhere

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Where an SDK instance stands with its control plane.
public struct ControlPlaneStatus: Sendable, Equatable {
    /// The connection's state.
    public enum State: String, Sendable, Equatable {
        /// No control plane: no base URL or API key, or no `ControlPlaneModule` registered.
        case disabled
        /// Phase 2 has not reached it yet.
        case connecting
        /// Authenticated and registered; telemetry is uploaded as it comes.
        case connected
        /// Unreachable or refusing; the SDK works on, and tries again with back-off.
        case offline
    }

    /// The connection's state.
    public var state: State
    /// The device id it registered under.
    public var deviceId: String?
    /// The user the API key belongs to, as the control plane said when it issued tokens.
    public var userId: String?
    /// The organization the API key belongs to, as the control plane said.
    public var organizationId: String?
    /// Whether the device was new to the control plane at its last registration.
    public var deviceWasNew: Bool?
    /// The ids of the models assigned to this device, as last fetched.
    public var assignedModels: [String]
    /// When the last successful exchange with the control plane happened.
    public var lastContact: Date?
    /// Why the last attempt failed, when it did.
    public var lastError: SDKException?

    /// A status with nothing known yet.
    public init(state: State) {
        self.state = state
        self.assignedModels = []
    }
}
