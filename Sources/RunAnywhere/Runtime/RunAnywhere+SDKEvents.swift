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
        let error = SDKException(errorCode, message)
        events.publish(.failure(error, component: component, operation: operation, recoverable: recoverable))
        return true
    }

    /// The oldest event of the shared bus not yet polled, or `nil` (the original SDK's
    /// polling API, for apps without a run loop). Events are queued from the first
    /// ``initialize(apiKey:baseURL:environment:storageDirectory:)`` or poll on; the queue
    /// keeps the newest 256, dropping the oldest beyond that.
    public static func pollSDKEvent() -> SDKEvent? {
        eventQueue.next()
    }

    /// The queue behind ``pollSDKEvent()``, on the shared bus.
    static let eventQueue = SDKEventQueue(bus: events)
}

/// The events of one bus in order, for polling; bounded, so an app that never polls loses
/// only the oldest.
final class SDKEventQueue: Sendable {
    /// How many events the queue keeps.
    static let capacity = 256
    private let queue = Mutex<[SDKEvent]>([])

    /// A queue that takes every event `bus` publishes from now on.
    init(bus: EventBus) {
        _ = bus.addObserver { [self] event in
            queue.withLock { queue in
                if queue.count == Self.capacity { queue.removeFirst() }
                queue.append(event)
            }
        }
    }

    /// The oldest queued event, removed; `nil` when none is queued.
    func next() -> SDKEvent? {
        queue.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}
