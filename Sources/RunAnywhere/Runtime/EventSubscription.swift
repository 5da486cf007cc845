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
