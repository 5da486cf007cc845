import Synchronization

/// A one-way event many tasks can wait for: the server's exit, the end of its output.
final class Latch: Sendable {
    private struct State {
        var fired = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// Whether ``fire()`` has been called.
    var isFired: Bool {
        state.withLock { $0.fired }
    }

    /// Releases every waiter, now and later; calling it again does nothing.
    func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.fired else { return [] }
            state.fired = true
            let waiters = Array(state.waiters.values)
            state.waiters = [:]
            return waiters
        }
        for waiter in waiters {
            waiter.resume()
        }
    }

    /// Returns once fired, or as soon as the calling task is cancelled, so that a task
    /// racing the latch never outlives the race.
    func wait() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    guard !state.fired, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow {
                    continuation.resume()
                }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Waits at most `duration`; returns whether the latch fired.
    func wait(upTo duration: Duration) async -> Bool {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.wait() }
            group.addTask { try? await Task.sleep(for: duration) }
            await group.next()
            group.cancelAll()
        }
        return isFired
    }
}

/// A value several tasks race to provide; the first one wins and the rest are ignored.
final class FirstOutcome<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var continuation: CheckedContinuation<Value, Never>?
    }

    private let state = Mutex(State())

    /// Offers a value; ignored once one has been given.
    func offer(_ value: Value) {
        let continuation = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard state.value == nil else { return nil }
            state.value = value
            let continuation = state.continuation
            state.continuation = nil
            return continuation
        }
        continuation?.resume(returning: value)
    }

    /// The first value offered; one task may wait for it.
    func value() async -> Value {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
            let ready = state.withLock { state -> Value? in
                if let value = state.value { return value }
                state.continuation = continuation
                return nil
            }
            if let ready {
                continuation.resume(returning: ready)
            }
        }
    }
}
