/// The original SDK's event calls by number and by polling, on the shared bus
/// (``RunAnywhere/events``).
extension RunAnywhere {
    /// Calls `handler` for every event of the shared bus until ``unsubscribeSDKEvents(_:)``
    /// is called with the returned number (the original SDK's subscription id).
    @discardableResult
    public static func subscribeSDKEvents(_ handler: @escaping @Sendable (SDKEvent) -> Void) -> UInt64 {
        events.addNumberedObserver(handler)
    }

    /// Stops the handler ``subscribeSDKEvents(_:)`` numbered `id`; an unknown number does nothing.
    public static func unsubscribeSDKEvents(_ id: UInt64) {
        events.removeNumberedObserver(id)
    }

    /// Publishes an event on the shared bus; always `true` (the original SDK reports whether
    /// its native router took the event).
    @discardableResult
    public static func publishSDKEvent(_ event: SDKEvent) -> Bool {
        events.publishSDKEvent(event)
    }

    /// Publishes a failure in the original SDK's generic shape (a ``SDKEvent/Kind/failure(_:component:operation:recoverable:)``
    /// event in the `sdk` category); always `true`.
    @discardableResult
    public static func publishSDKFailure(
        errorCode: SDKException.Code,
        message: String,
        component: String,
        operation: String,
        recoverable: Bool = false
    ) -> Bool {
        events.publishSDKFailure(
            errorCode: errorCode,
            message: message,
            component: component,
            operation: operation,
            recoverable: recoverable
        )
    }

    /// The oldest event of the shared bus not yet polled, or `nil` (the original SDK's
    /// polling API, for apps without a run loop). Events are queued from the first
    /// ``initialize(apiKey:baseURL:environment:storageDirectory:)`` or poll on; the queue
    /// keeps the newest 256, dropping the oldest beyond that.
    public static func pollSDKEvent() -> SDKEvent? {
        events.nextPolled()
    }
}

/// The original SDK's event calls on an instance's own bus (``RunAnywhereSDK/events``).
extension RunAnywhereSDK {
    /// Calls `handler` for every event of this instance until ``unsubscribeSDKEvents(_:)`` is
    /// called with the returned number.
    @discardableResult
    public func subscribeSDKEvents(_ handler: @escaping @Sendable (SDKEvent) -> Void) -> UInt64 {
        events.addNumberedObserver(handler)
    }

    /// Stops the handler ``subscribeSDKEvents(_:)`` numbered `id`; an unknown number does nothing.
    public func unsubscribeSDKEvents(_ id: UInt64) {
        events.removeNumberedObserver(id)
    }

    /// Publishes an event on this instance's bus; always `true`.
    @discardableResult
    public func publishSDKEvent(_ event: SDKEvent) -> Bool {
        events.publishSDKEvent(event)
    }

    /// Publishes a failure in the original SDK's generic shape on this instance's bus; always
    /// `true`.
    @discardableResult
    public func publishSDKFailure(
        errorCode: SDKException.Code,
        message: String,
        component: String,
        operation: String,
        recoverable: Bool = false
    ) -> Bool {
        events.publishSDKFailure(
            errorCode: errorCode,
            message: message,
            component: component,
            operation: operation,
            recoverable: recoverable
        )
    }

    /// The oldest event of this instance's bus not yet polled, or `nil`. An instance of its own
    /// queues from its creation on; the shared instance's bus is the facade's, whose queue
    /// outlives instances (``RunAnywhere/pollSDKEvent()``). The queue keeps the newest 256.
    public func pollSDKEvent() -> SDKEvent? {
        events.nextPolled()
    }
}

extension EventBus {
    /// Publishes `event`; `true`, as the original SDK's router answers when it takes one.
    fileprivate func publishSDKEvent(_ event: SDKEvent) -> Bool {
        publish(event)
        return true
    }

    /// Publishes a ``SDKEvent/Kind/failure(_:component:operation:recoverable:)``; `true`.
    fileprivate func publishSDKFailure(
        errorCode: SDKException.Code,
        message: String,
        component: String,
        operation: String,
        recoverable: Bool
    ) -> Bool {
        let error = SDKException(errorCode, message)
        return publishSDKEvent(
            .init(.failure(error, component: component, operation: operation, recoverable: recoverable))
        )
    }
}
