import Dispatch
import Synchronization

/// One long-lived thread that runs submitted jobs in order.
///
/// Native engines block for seconds per call, which must not happen on Swift's
/// cooperative pool (two threads on a two-core machine). A thread per call would do, but
/// engines built with OpenMP keep a team of worker threads per calling thread: a new
/// caller each time rebuilds that team and costs milliseconds per call. So each engine
/// gets one thread for its whole life, which also keeps its calls strictly serial.
///
/// ```swift
/// let worker = WorkerThread(name: "llama")
/// let n = try await worker.run { expensiveBlockingCall() }
/// worker.stop()
/// ```
package final class WorkerThread: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var stopping = false
        /// Why the thread never started.
        var failure: SDKException?
    }

    /// Shared by the thread and the submitters; the thread does not retain `self`, so
    /// dropping the last reference stops it.
    private final class Queue: Sendable {
        let state = Mutex(State())
        let signal = DispatchSemaphore(value: 0)
    }
    private let queue = Queue()

    /// Starts the thread; if the system starts none, every `run` fails with the reason.
    package init(name: String, stackSize: Int = 8 << 20) {
        let queue = self.queue
        do throws(SDKException) {
            try NativeThread.detach(name: name, stackSize: stackSize) {
                while true {
                    queue.signal.wait()
                    let job = queue.state.withLock { state -> (@Sendable () -> Void)? in
                        state.jobs.isEmpty ? nil : state.jobs.removeFirst()
                    }
                    guard let job else { return }  // woken with no job: stop
                    job()
                }
            }
        } catch {
            queue.state.withLock {
                $0.stopping = true
                $0.failure = error
            }
        }
    }

    /// Runs `body` on the thread after every job submitted before it.
    ///
    /// - Throws: what `body` throws, or `.internalError` once the thread is stopped.
    package func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let refusal = queue.state.withLock { state -> SDKException? in
                guard !state.stopping else {
                    return state.failure ?? SDKException(.internalError, "The engine thread has been stopped")
                }
                state.jobs.append { continuation.resume(with: Result { try body() }) }
                return nil
            }
            if let refusal {
                continuation.resume(throwing: refusal)
            } else {
                queue.signal.signal()
            }
        }
    }

    /// Queues `body` to run on the thread after every job submitted before it, without
    /// waiting for it.
    ///
    /// - Returns: `false` (and `body` never runs) once the thread is stopped.
    package func submit(_ body: @escaping @Sendable () -> Void) -> Bool {
        let accepted = queue.state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.jobs.append(body)
            return true
        }
        if accepted { queue.signal.signal() }
        return accepted
    }

    /// Lets queued jobs finish, then ends the thread. Later `run` calls fail.
    package func stop() {
        let first = queue.state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        if first { queue.signal.signal() }
    }

    deinit { stop() }
}
