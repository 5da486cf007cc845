import Synchronization

/// The remote error reporting switch of ``LoggingConfiguration/enableSentryLogging``: the
/// reporting lives in the control-plane module, which the core cannot import, so that module
/// installs what turns it on and off.
package enum RemoteReportingSwitch {
    private static let state = Mutex<(on: Bool, handler: (@Sendable (Bool) -> Void)?)>((false, nil))

    /// Whether remote reporting was last switched on.
    package static var isOn: Bool { state.withLock { $0.on } }

    /// Installs what switches the shared instance's reporting, replacing any other (`nil`
    /// removes it).
    package static func install(_ handler: (@Sendable (Bool) -> Void)?) {
        state.withLock { $0.handler = handler }
    }

    /// Records a switch the shared instance took (`setSentryLoggingEnabled(_:)`), so a
    /// configuration applied later compares against it.
    package static func record(_ on: Bool) {
        state.withLock { $0.on = on }
    }

    /// Switches reporting when `on` differs from the last switch. Without a handler nothing
    /// can turn it on, so nothing is recorded and a later configuration tries again.
    static func request(_ on: Bool) {
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
