import Synchronization

/// The remote error reporting switch of ``LoggingConfiguration/enableSentryLogging``: the
/// reporting lives in the control-plane module, which the core cannot import, so that module
/// installs what turns it on and off (``shared`` is the process's; tests make their own).
package final class RemoteReportingSwitch: Sendable {
    /// The switch ``RunAnywhere/configureLogging(_:)`` applies.
    package static let shared = RemoteReportingSwitch()

    private let state = Mutex<(on: Bool, handler: (@Sendable (Bool) -> Void)?)>((false, nil))

    /// A switch that is off, with no handler.
    package init() {}

    /// Whether remote reporting was last switched on.
    package var isOn: Bool { state.withLock { $0.on } }

    /// Installs what switches the shared instance's reporting, replacing any other (`nil`
    /// removes it).
    package func install(_ handler: (@Sendable (Bool) -> Void)?) {
        state.withLock { $0.handler = handler }
    }

    /// Records a switch the shared instance took (`setSentryLoggingEnabled(_:)`), so a
    /// configuration applied later compares against it.
    package func record(_ on: Bool) {
        state.withLock { $0.on = on }
    }

    /// Switches reporting when `on` differs from the last switch. Without a handler nothing
    /// can turn it on, so nothing is recorded and a later configuration tries again.
    package func request(_ on: Bool) {
        let (changed, handler) = state.withLock { state in (state.on != on, state.handler) }
        guard changed else { return }
        // Outside the lock: the handler records the switch itself, once the shared instance takes it.
        if let handler {
            handler(on)
        } else if on {
            SDKLogger.shared.warning(
                "Remote error reporting not turned on: it needs RunAnywhereControlPlane's ControlPlaneModule registered"
            )
        } else {
            record(false)
        }
    }
}
