import Synchronization

/// A flag set once from any thread, e.g. "some output already reached the caller", after
/// which a failed remote attempt can no longer be re-run on this device unseen.
final class AtomicFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Sets the flag.
    func set() { flag.store(true, ordering: .releasing) }

    /// Whether the flag was set.
    var isSet: Bool { flag.load(ordering: .acquiring) }
}
