import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A handler registered with ``EventBus/on(_:)``; it stops being called when the subscription
/// is cancelled or released, as Combine's `AnyCancellable` does in the original SDK.
public final class EventSubscription: Sendable, Hashable {
    private let state: Mutex<(bus: EventBus, id: UUID)?>

    init(bus: EventBus, id: UUID) {
        state = Mutex((bus, id))
    }

    /// Stops the handler; later calls do nothing.
    public func cancel() {
        let taken = state.withLock { state in
            let taken = state
            state = nil
            return taken
        }
        guard let taken else { return }
        taken.bus.removeObserver(taken.id)
    }

    deinit { cancel() }

    /// Subscriptions are equal only to themselves.
    public static func == (lhs: EventSubscription, rhs: EventSubscription) -> Bool { lhs === rhs }

    /// Hashes the subscription's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

// The original SDK's apps keep their `on(_:)` results the Combine way.
extension EventSubscription {
    /// Keeps the subscription alive in `set` until the set lets it go, as Combine's
    /// `AnyCancellable.store(in:)` does.
    public func store(in set: inout Set<EventSubscription>) {
        set.insert(self)
    }

    /// Keeps the subscription alive in `collection`, as Combine's `AnyCancellable.store(in:)` does.
    public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == EventSubscription {
        collection.append(self)
    }
}

#if !canImport(Combine)
/// The original SDK's name for what ``EventBus/on(_:)`` returns, so its
/// `Set<AnyCancellable>` compiles where Combine does not exist (Linux); with Combine, the
/// name is Combine's and a subscription is an ``EventSubscription``.
public typealias AnyCancellable = EventSubscription
#endif
