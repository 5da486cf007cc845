import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Holds back everything a voice turn produces until the turn is known to be real.
///
/// A speculative turn starts answering the moment the user falls silent, before anyone
/// knows whether the user has finished. Until the session confirms the turn, its events are
/// kept here and its audio waits; if the user speaks again, the gate is discarded and
/// nothing of the turn is heard, shown or remembered. A turn that is real from the start
/// (a recorded utterance, or a session without speculation) gets a gate that is already open.
final class TurnGate: Sendable {
    /// When the user's speech ended, once it is known.
    struct Clock: Sendable {
        /// When the session decided the user had finished.
        var decided: ContinuousClock.Instant
        /// When the last voiced audio reached the SDK: the true end of speech.
        var acousticEnd: ContinuousClock.Instant
        /// The silence the session waited before deciding, in seconds.
        var silenceWait: TimeInterval
    }

    private enum State {
        case held(events: [VoiceEvent], confirmed: Bool)
        case open(Clock)
        case discarded
    }

    private let state: Mutex<State>
    private let waiters = Mutex<[CheckedContinuation<Bool, Never>]>([])
    private let downstream: @Sendable (VoiceEvent) -> Void

    /// A gate that holds events for `downstream` until it is opened.
    init(downstream: @escaping @Sendable (VoiceEvent) -> Void) {
        self.downstream = downstream
        state = Mutex(.held(events: [], confirmed: false))
    }

    /// A gate that is open from the start.
    init(open clock: Clock, downstream: @escaping @Sendable (VoiceEvent) -> Void) {
        self.downstream = downstream
        state = Mutex(.open(clock))
    }

    /// Passes an event on, or keeps it until the gate opens; drops it once discarded.
    func emit(_ event: VoiceEvent) {
        state.withLock { state in
            switch state {
            // Yielding under the lock keeps the order when `open` flushes concurrently.
            case .open: downstream(event)
            case .held(var events, let confirmed):
                events.append(event)
                state = .held(events: events, confirmed: confirmed)
            case .discarded: break
            }
        }
    }

    /// The session has decided the turn is real; it opens once the turn before it is done.
    func confirm() {
        state.withLock { state in
            if case .held(let events, _) = state { state = .held(events: events, confirmed: true) }
        }
    }

    /// Whether the turn was confirmed (opened, or about to be).
    var isConfirmed: Bool {
        state.withLock { state in
            switch state {
            case .open: true
            case .held(_, let confirmed): confirmed
            case .discarded: false
            }
        }
    }

    /// The end of speech, once the gate is open.
    var clock: Clock? {
        state.withLock { state in
            if case .open(let clock) = state { return clock }
            return nil
        }
    }

    /// Lets the turn be heard: passes on the events held so far, in order, and wakes the
    /// turn's speaker.
    func open(_ clock: Clock) {
        let opened = state.withLock { state -> Bool in
            guard case .held(let events, _) = state else { return false }
            for event in events { downstream(event) }
            state = .open(clock)
            return true
        }
        if opened { resumeWaiters(true) }
    }

    /// The turn was not real: drops what it held and everything it will still produce.
    func discard() {
        let discarded = state.withLock { state -> Bool in
            guard case .held = state else { return false }
            state = .discarded
            return true
        }
        if discarded { resumeWaiters(false) }
    }

    /// Waits until the gate opens (`true`) or is discarded (`false`). Cancelling the waiting
    /// task discards a gate that is still closed.
    func wait() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let settled = state.withLock { state -> Bool? in
                    switch state {
                    case .open: return true
                    case .discarded: return false
                    case .held:
                        waiters.withLock { $0.append(continuation) }
                        return nil
                    }
                }
                if let settled { continuation.resume(returning: settled) }
            }
        } onCancel: {
            discard()
        }
    }

    private func resumeWaiters(_ value: Bool) {
        let pending = waiters.withLock { waiters in
            defer { waiters = [] }
            return waiters
        }
        for waiter in pending { waiter.resume(returning: value) }
    }
}
