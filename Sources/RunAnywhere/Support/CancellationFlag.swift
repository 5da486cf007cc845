import Synchronization

/// A flag set from any thread and polled by a generating thread.
@_spi(Backend) public final class CancellationFlag: Sendable {
    fileprivate let flag = Atomic<Bool>(false)

    /// Creates a flag that is not set.
    public init() {}

    /// Asks the work to stop.
    public func cancel() { flag.store(true, ordering: .releasing) }

    /// Whether stopping was asked.
    public var isCancelled: Bool { flag.load(ordering: .acquiring) }
}

@_spi(Backend) extension CancellationFlag {
    /// Clears the flag so the work can run again.
    public func reset() { flag.store(false, ordering: .releasing) }
}
