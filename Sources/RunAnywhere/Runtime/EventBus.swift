import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Delivers ``SDKEvent``s to any number of subscribers as `AsyncStream`s.
///
/// Each subscriber gets its own stream, buffered so a slow reader never blocks the SDK
/// (the oldest events are dropped past ``bufferLimit``). A stream ends when its task is
/// cancelled, its reader stops iterating, or the SDK that owns the bus shuts down
/// (``RunAnywhereSDK/shutdown()``, ``RunAnywhere/reset()``); events published before that are
/// still delivered.
///
/// ```swift
/// Task {
///     for await event in RunAnywhere.events.events(for: .llm) {
///         print(event)
///     }
/// }
/// ```
public final class EventBus: Sendable {
    /// Events kept per subscriber before the oldest are dropped.
    public let bufferLimit: Int
    private let subscribers = Mutex<Subscribers>(Subscribers())
    private let observers = Mutex<[UUID: @Sendable (SDKEvent) -> Void]>([:])
    /// The original SDK's numbered subscriptions: each number's observer.
    private let numbered = Mutex<(next: UInt64, live: [UInt64: UUID])>((1, [:]))
    /// The events the original SDK's polling API has not taken yet, once polling started.
    private let polled = Mutex<(started: Bool, events: [SDKEvent])>((false, []))
    /// How many events ``nextPolled()`` can fall behind before the oldest are dropped.
    private static let pollCapacity = 256

    private struct Subscriber: Sendable {
        let categories: Set<EventCategory>?
        let continuation: AsyncStream<SDKEvent>.Continuation
    }

    private struct Subscribers: Sendable {
        var live: [UUID: Subscriber] = [:]
        /// Set when the bus's instance is gone: a later subscription ends at once.
        var closed = false
    }

    /// Creates a bus.
    public init(bufferLimit: Int = 1024) {
        self.bufferLimit = bufferLimit
    }

    /// The bus of the static ``RunAnywhere`` facade, ``RunAnywhere/events`` (the original
    /// SDK's singleton). Each ``RunAnywhereSDK`` instance has a bus of its own.
    public static var shared: EventBus { RunAnywhere.events }

    /// All events published from now on: each read of the property is a new subscription.
    ///
    /// The original SDK's `events` is a Combine publisher. Combine does not exist on Linux, so
    /// here it is a stream (`for await event in bus.events`), and ``on(_:)`` takes the place
    /// of `sink`.
    public var events: AsyncStream<SDKEvent> { subscribe(nil) }

    /// Events of the given categories published from now on.
    public func events(for categories: EventCategory...) -> AsyncStream<SDKEvent> { subscribe(Set(categories)) }

    /// Delivers an event to every matching subscriber.
    public func publish(_ event: SDKEvent) {
        // Yield outside the lock: a stream's onTermination re-enters the lock.
        for observer in observers.withLock({ Array($0.values) }) { observer(event) }
        let targets = subscribers.withLock { Array($0.live.values) }
        for subscriber in targets where subscriber.categories?.contains(event.category) ?? true {
            subscriber.continuation.yield(event)
        }
    }

    /// Publishes an event of the given kind, stamped now.
    public func publish(_ kind: SDKEvent.Kind) { publish(SDKEvent(kind)) }

    /// Calls `handler` for every event published from now on, on the publisher's thread, until
    /// the returned subscription is cancelled or released (the original SDK's Combine `sink`).
    /// Keep the handler short: the publisher waits for it.
    @discardableResult
    public func on(_ handler: @escaping @Sendable (SDKEvent) -> Void) -> EventSubscription {
        EventSubscription(bus: self, id: addObserver(handler))
    }

    /// Calls `handler` for every event of `category` published from now on; see ``on(_:)``.
    @discardableResult
    public func on(
        _ category: EventCategory,
        handler: @escaping @Sendable (SDKEvent) -> Void
    ) -> EventSubscription {
        on { event in
            if event.category == category { handler(event) }
        }
    }

    /// Calls `observer` on the publisher's thread for every event, before any stream gets
    /// it: for the SDK's own bookkeeping (the telemetry queue), which must have an event
    /// written down by the time the call that caused it returns. Returns the id to remove it by.
    package func addObserver(_ observer: @escaping @Sendable (SDKEvent) -> Void) -> UUID {
        let id = UUID()
        observers.withLock { $0[id] = observer }
        return id
    }

    /// Stops calling an observer.
    package func removeObserver(_ id: UUID) {
        _ = observers.withLock { $0.removeValue(forKey: id) }
    }

    /// Calls `handler` for every event until ``removeNumberedObserver(_:)`` is called with the
    /// returned number (the original SDK's subscription ids).
    package func addNumberedObserver(_ handler: @escaping @Sendable (SDKEvent) -> Void) -> UInt64 {
        let observer = addObserver(handler)
        return numbered.withLock { state in
            let number = state.next
            state.next += 1
            state.live[number] = observer
            return number
        }
    }

    /// Stops the handler numbered `number`; an unknown number does nothing.
    package func removeNumberedObserver(_ number: UInt64) {
        guard let observer = numbered.withLock({ $0.live.removeValue(forKey: number) }) else { return }
        removeObserver(observer)
    }

    /// Queues every event published from now on for ``nextPolled()``, keeping the newest
    /// ``pollCapacity``; calling it again changes nothing.
    package func startPolling() {
        // The observer is added under the lock, so no caller returns before it is in place.
        // `publish` calls observers outside its own lock, so the order of the two locks is safe.
        polled.withLock { state in
            guard !state.started else { return }
            state.started = true
            _ = addObserver { [weak self] event in
                self?.polled.withLock { state in
                    if state.events.count == Self.pollCapacity { state.events.removeFirst() }
                    state.events.append(event)
                }
            }
        }
    }

    /// The oldest queued event, removed; `nil` when none is queued. The first call starts
    /// polling, so it sees the events published after it.
    package func nextPolled() -> SDKEvent? {
        startPolling()
        return polled.withLock { $0.events.isEmpty ? nil : $0.events.removeFirst() }
    }

    /// The number of live subscriptions.
    public var subscriberCount: Int { subscribers.withLock { $0.live.count } }

    /// Ends every subscription open now, after the events already buffered for it. With
    /// `close`, subscriptions made later end at once too: the bus's instance is gone.
    func finishSubscriptions(close: Bool = false) {
        let ended = subscribers.withLock { subscribers in
            let open = Array(subscribers.live.values)
            subscribers.live = [:]
            subscribers.closed = subscribers.closed || close
            return open
        }
        if close {
            // A numbered handler that holds its instance would otherwise keep it alive.
            let numberedObservers = numbered.withLock { state in
                defer { state.live = [:] }
                return Array(state.live.values)
            }
            for observer in numberedObservers { removeObserver(observer) }
        }
        // Outside the lock: finishing runs onTermination, which takes it.
        for subscriber in ended { subscriber.continuation.finish() }
    }

    private func subscribe(_ categories: Set<EventCategory>?) -> AsyncStream<SDKEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SDKEvent.self,
            bufferingPolicy: .bufferingNewest(bufferLimit)
        )
        let id = UUID()
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.live.removeValue(forKey: id) }
        }
        let open = subscribers.withLock { subscribers in
            guard !subscribers.closed else { return false }
            subscribers.live[id] = Subscriber(categories: categories, continuation: continuation)
            return true
        }
        if !open { continuation.finish() }
        return stream
    }
}
