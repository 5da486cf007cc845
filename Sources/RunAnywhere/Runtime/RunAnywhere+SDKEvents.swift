import Synchronization

/// The original SDK's event calls by number, over ``EventBus/on(_:)`` of ``RunAnywhere/events``.
extension RunAnywhere {
    private static let numberedSubscriptions = Mutex<(next: UInt64, live: [UInt64: EventSubscription])>((1, [:]))

    /// Calls `handler` for every event of the shared bus until ``unsubscribeSDKEvents(_:)``
    /// is called with the returned number (the original SDK's subscription id).
    @discardableResult
    public static func subscribeSDKEvents(_ handler: @escaping @Sendable (SDKEvent) -> Void) -> UInt64 {
        let subscription = events.on(handler)
        return numberedSubscriptions.withLock { state in
            let id = state.next
            state.next += 1
            state.live[id] = subscription
            return id
        }
    }

    /// Stops the handler ``subscribeSDKEvents(_:)`` numbered `id`; an unknown number does nothing.
    public static func unsubscribeSDKEvents(_ id: UInt64) {
        let subscription = numberedSubscriptions.withLock { $0.live.removeValue(forKey: id) }
        subscription?.cancel()
    }

    /// Publishes an event on the shared bus; always `true` (the original SDK reports whether
    /// its native router took the event).
    @discardableResult
    public static func publishSDKEvent(_ event: SDKEvent) -> Bool {
        events.publish(event)
        return true
    }
}
