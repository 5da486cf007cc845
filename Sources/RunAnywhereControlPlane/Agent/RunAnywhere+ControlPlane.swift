@_spi(Backend) public import RunAnywhere

#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

extension RunAnywhereSDK {
    /// Where this instance stands with its control plane. `.disabled` unless the instance has
    /// a base URL, an API key and a control-plane module:
    ///
    /// ```swift
    /// import RunAnywhereControlPlane
    ///
    /// let sdk = try RunAnywhereSDK(home: home, environment: .production, apiKey: key,
    ///                              baseURL: "https://cp.example.com", modules: [ControlPlaneModule(), LlamaCPPModule()])
    /// try await sdk.completeServicesInitialization()   // never fails for an unreachable control plane
    /// print(sdk.controlPlaneStatus.state)              // .connected, or .offline (tried again in the background)
    /// ```
    public var controlPlaneStatus: ControlPlaneStatus {
        (try? runtime())?.instanceService(ControlPlaneAgent.self)?.status ?? ControlPlaneStatus(state: .disabled)
    }

    /// Connects now if phase 2 could not (authenticating and registering the device), then
    /// fetches the model assignments: new models are registered and required ones start
    /// downloading.
    ///
    /// - Throws: `.invalidConfiguration` without a control plane; the control plane's errors
    ///   (`.remoteUnreachable`, `.remoteTimeout`, `.remoteUnauthorized`, …).
    public func syncControlPlane() async throws(SDKException) {
        let agent = try controlPlaneAgent()
        try await agent.connect()
    }

    /// Uploads every queued telemetry event now, in batches, and returns what the control
    /// plane acknowledged. Events stay queued on disk until acknowledged, so a failure loses
    /// nothing; the background loop would send them later anyway.
    ///
    /// - Throws: `.invalidConfiguration` without a control plane; the control plane's errors.
    @discardableResult
    public func flushTelemetry() async throws(SDKException) -> TelemetryReceipt {
        try await controlPlaneAgent().flush()
    }

    /// Telemetry events waiting on disk for the control plane (0 without one).
    public func pendingTelemetryCount() throws(SDKException) -> Int {
        try runtime().instanceService(ControlPlaneAgent.self)?.queue.count() ?? 0
    }

    /// Whether this instance holds a session with its control plane (the original SDK's
    /// name): its status is connected.
    public var isAuthenticated: Bool { controlPlaneStatus.state == .connected }

    /// Whether the control plane has registered this device (the original SDK's name): the
    /// status carries a device id.
    public func isDeviceRegistered() -> Bool { controlPlaneStatus.deviceId != nil }

    /// The user this instance's API key belongs to (the original SDK's name), as the control
    /// plane said when it issued tokens; `nil` before that or when it names none.
    public func getUserId() -> String? { controlPlaneStatus.userId }

    /// The organization this instance's API key belongs to (the original SDK's name).
    public func getOrganizationId() -> String? { controlPlaneStatus.organizationId }

    private func controlPlaneAgent() throws(SDKException) -> ControlPlaneAgent {
        guard let agent = try runtime().instanceService(ControlPlaneAgent.self) else {
            throw SDKException(
                .invalidConfiguration,
                "This SDK instance has no control plane",
                recovery:
                    "Give it a base URL and an API key, and register ControlPlaneModule() from RunAnywhereControlPlane"
            )
        }
        return agent
    }
}

extension RunAnywhere {
    /// The shared instance's control-plane status.
    ///
    /// Reads `RunAnywhereSDK.controlPlaneStatus` of the shared instance.
    public static var controlPlaneStatus: ControlPlaneStatus {
        (try? sdk().controlPlaneStatus) ?? ControlPlaneStatus(state: .disabled)
    }

    /// Whether the shared instance holds a session with its control plane.
    ///
    /// Reads `RunAnywhereSDK.isAuthenticated` of the shared instance.
    public static var isAuthenticated: Bool { (try? sdk().isAuthenticated) ?? false }

    /// Whether the control plane has registered this device.
    ///
    /// Calls `RunAnywhereSDK.isDeviceRegistered()` on the shared instance.
    public static func isDeviceRegistered() -> Bool { (try? sdk().isDeviceRegistered()) ?? false }

    /// The user the shared instance's API key belongs to.
    ///
    /// Calls `RunAnywhereSDK.getUserId()` on the shared instance.
    public static func getUserId() -> String? { (try? sdk())?.getUserId() }

    /// The organization the shared instance's API key belongs to.
    ///
    /// Calls `RunAnywhereSDK.getOrganizationId()` on the shared instance.
    public static func getOrganizationId() -> String? { (try? sdk())?.getOrganizationId() }

    /// Connects the shared instance to its control plane and fetches the assignments.
    ///
    /// Calls `RunAnywhereSDK.syncControlPlane()` on the shared instance.
    public static func syncControlPlane() async throws(SDKException) {
        try await sdk().syncControlPlane()
    }

    /// Uploads the shared instance's queued telemetry now.
    ///
    /// Calls `RunAnywhereSDK.flushTelemetry()` on the shared instance.
    @discardableResult
    public static func flushTelemetry() async throws(SDKException) -> TelemetryReceipt {
        try await sdk().flushTelemetry()
    }

    /// The shared instance's queued telemetry events.
    ///
    /// Calls `RunAnywhereSDK.pendingTelemetryCount()` on the shared instance.
    public static func pendingTelemetryCount() throws(SDKException) -> Int {
        try sdk().pendingTelemetryCount()
    }
}
