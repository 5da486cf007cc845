@_spi(Backend) import RunAnywhere
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A running solution: feed it inputs, read what happens on ``events``, and end it.
///
/// Inputs are processed one at a time, in order. ``closeInput()`` lets the queued inputs
/// finish and then ends the solution; ``stop()`` ends it after the input in progress;
/// ``cancel()`` ends it at once. A failing input is reported (``SolutionEvent/failed(index:error:)``)
/// and the next one is processed.
///
/// ```swift
/// let handle = try await sdk.solutions.run(yaml: try String(contentsOfFile: "Examples/rag-qa.yaml"))
/// handle.start()
/// try handle.feed("When is the boiler serviced?")
/// handle.closeInput()
/// for await event in handle.events {
///     if case .output(_, let text, _) = event { print(text) }
/// }
/// ```
public final class SolutionHandle: Sendable {
    /// The configuration it runs.
    public let config: SolutionConfig
    /// What happens, in order; ends after ``SolutionEvent/finished(_:)``. Read it once.
    public let events: AsyncStream<SolutionEvent>

    private let pipeline: any SolutionPipeline
    private let emit: AsyncStream<SolutionEvent>.Continuation
    private let inputs: AsyncStream<String>
    private let feedContinuation: AsyncStream<String>.Continuation
    private let state = Mutex(State())

    private struct State: Sendable {
        var worker: Task<SolutionSummary, Never>?
        var current: Task<Void, Never>?
        var inputClosed = false
        var stopping = false
        var cancelled = false
        var summary: SolutionSummary?
    }

    init(config: SolutionConfig, pipeline: any SolutionPipeline) {
        self.config = config
        self.pipeline = pipeline
        (events, emit) = AsyncStream.makeStream(of: SolutionEvent.self)
        (inputs, feedContinuation) = AsyncStream.makeStream(of: String.self)
        for input in config.inputs { try? feed(input) }
    }

    /// Whether it has not finished yet.
    public var isAlive: Bool { state.withLock { $0.summary == nil } }

    /// Starts processing inputs; later calls do nothing.
    public func start() {
        state.withLock { state in
            guard state.worker == nil else { return }
            state.worker = Task { await self.work() }
        }
    }

    /// Queues an input: a question, a user turn, or the path of a recording.
    ///
    /// - Throws: `.invalidInput` after ``closeInput()``, ``stop()`` or ``cancel()``, or for
    ///   an empty input.
    public func feed(_ input: String) throws(SDKException) {
        guard !input.trimmed().isEmpty else {
            throw SDKException(.invalidInput, "An input of solution '\(config.name)' is empty")
        }
        try state.withLock { (state) throws(SDKException) in
            guard !state.inputClosed, !state.stopping, !state.cancelled else {
                throw SDKException(.invalidInput, "Solution '\(config.name)' takes no more input")
            }
        }
        feedContinuation.yield(input)
    }

    /// No more inputs: the queued ones are processed, then the solution finishes.
    public func closeInput() {
        state.withLock { $0.inputClosed = true }
        feedContinuation.finish()
    }

    /// Ends the solution after the input in progress; queued inputs are dropped. Returns at
    /// once, as the original SDK's does: ``finished()`` waits for the end and says how it went.
    public func stop() {
        state.withLock { $0.stopping = true }
        feedContinuation.finish()
        endIfNeverStarted()
    }

    /// Ends the solution at once: the input in progress is cancelled. Returns at once;
    /// ``finished()`` waits for the end.
    public func cancel() {
        let current = state.withLock { state -> Task<Void, Never>? in
            state.cancelled = true
            return state.current
        }
        feedContinuation.finish()
        current?.cancel()
        endIfNeverStarted()
    }

    /// A handle never started still has to end: its worker runs, sees the stop, and cleans up
    /// (tools it registered, its events), so nothing waits on ``finished()`` for that.
    private func endIfNeverStarted() {
        state.withLock { state in
            guard state.worker == nil, state.summary == nil else { return }
            state.worker = Task { await self.work() }
        }
    }

    /// Ends the solution at once: the original SDK's name for ``cancel()``.
    public func destroy() {
        cancel()
    }

    /// Waits until the solution finishes and returns how it ended. A handle not started yet
    /// is started: after ``stop()`` or ``cancel()`` it ends at once with nothing processed,
    /// after ``closeInput()`` once its inputs are processed; otherwise it waits for them.
    public func finished() async -> SolutionSummary {
        let worker = state.withLock { state -> Task<SolutionSummary, Never>? in
            if state.worker == nil, state.summary == nil {
                state.worker = Task { await self.work() }
            }
            return state.worker
        }
        if let worker { return await worker.value }
        return state.withLock { $0.summary } ?? SolutionSummary(processed: 0, failed: 0, reason: .stopped)
    }

    private func work() async -> SolutionSummary {
        emit.yield(.started(name: config.name))
        var processed = 0
        var failed = 0
        var index = 0
        for await input in inputs {
            let (stopping, cancelled) = state.withLock { ($0.stopping, $0.cancelled) }
            if stopping || cancelled { break }
            emit.yield(.input(index: index, text: input))
            let pipeline = self.pipeline
            let emit = self.emit
            let number = index
            let outcome = Mutex<SDKException?>(nil)
            let task = Task {
                do throws(SDKException) {
                    let (text, details) = try await pipeline.process(input, index: number) { emit.yield($0) }
                    emit.yield(.output(index: number, text: text, details: details))
                } catch {
                    outcome.withLock { $0 = error }
                }
            }
            // Under the lock cancel() takes too: a cancel that came after the check above
            // still reaches this input.
            let cancelledMeanwhile = state.withLock { state -> Bool in
                state.current = task
                return state.cancelled
            }
            if cancelledMeanwhile { task.cancel() }
            await task.value
            state.withLock { $0.current = nil }
            if let error = outcome.withLock({ $0 }) {
                failed += 1
                emit.yield(.failed(index: number, error: error))
            } else {
                processed += 1
            }
            index += 1
        }
        await pipeline.close()
        let reason: SolutionSummary.Reason = state.withLock {
            $0.cancelled ? .cancelled : $0.stopping ? .stopped : .inputClosed
        }
        let summary = SolutionSummary(processed: processed, failed: failed, reason: reason)
        state.withLock { $0.summary = summary }
        emit.yield(.finished(summary))
        emit.finish()
        return summary
    }
}
