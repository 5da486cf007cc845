/// What a module runs beside each SDK instance for the instance's whole life: made when the
/// instance is created, started by phase 2 of initialization, shut down with the instance.
/// The control plane's agent (`RunAnywhereControlPlane`) is one; so is remote error reporting.
///
/// The seam by which a module of this package adds fleet features without the core knowing
/// them; apps never see it.
package protocol InstanceService: AnyObject, Sendable {
    /// Phase 2: the step that may need the network. Returns `false` when the instance must
    /// work offline for now (the service logs why); it never fails the start.
    func start() async -> Bool

    /// Stops every task the service runs; the instance is shutting down.
    func shutdown() async
}

extension InstanceService {
    /// Nothing to do in phase 2.
    package func start() async -> Bool { true }
}

/// Makes a module's service for an instance, or `nil` when the instance needs none (no base
/// URL, say). Called once, at the end of phase 1.
package typealias InstanceServiceFactory = @Sendable (SDKRuntime) -> (any InstanceService)?
