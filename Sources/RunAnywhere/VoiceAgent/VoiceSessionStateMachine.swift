#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The decisions of a live voice session, apart from its I/O: when it sleeps and wakes for the
/// wake phrase, when a turn starts, when the user's speech stops the answer (barge-in), and what
/// the app hears about it. ``VoiceSession`` reads the audio, runs the VAD, the spotter and the
/// turns, feeds what happened here and carries out the actions that come back.
///
/// Times are seconds of the input stream. A turn is known here from the action that starts it
/// to the moment the session reports it finished (it may end on its own at any time, so the
/// session says so with each batch it feeds).
struct VoiceSessionStateMachine: Sendable {
    /// What the session does next, in order.
    enum Action: Sendable, Equatable {
        /// Tell the app.
        case emit(VoiceEvent)
        /// Stop the turn in progress (generation and synthesis) and silence the output.
        case stopTurn
        /// Restart the wake-word spotter: the session went back to sleep.
        case resetSpotter
        /// Start the turn on this utterance (``UtteranceSegmenter/Action/endOfTurn(_:endTime:useSpeculation:)``).
        case startTurn(PCMAudio, endTime: TimeInterval, useSpeculation: Bool)
        /// Start a speculative turn, or the early transcription, on the utterance so far.
        case speculate(PCMAudio)
        /// Drop the speculation.
        case cancelSpeculation
        /// Transcribe the utterance so far for a partial transcript.
        case transcribePartial(PCMAudio)
    }

    /// Whether a wake phrase is needed before each request.
    let needsWakeWord: Bool
    /// Whether the user's speech stops the answer.
    let bargeIn: Bool
    /// How long the session stays awake for a request that does not come.
    let wakeWordTimeout: TimeInterval

    /// Asleep: only the spotter listens (the VAD hears silence).
    private(set) var isAsleep: Bool
    /// Where the spotter's clock starts in the stream (it restarts at each sleep).
    private var spotterOrigin: TimeInterval = 0
    /// Awake and waiting for the request to begin, since this time.
    private var waitingSince: TimeInterval?
    /// Whether a turn this machine started may still be running.
    private var hasTurn = false
    /// Whether the current turn was already stopped: one barge-in per turn.
    private var interrupted = false

    /// A session with these settings, asleep when it needs a wake phrase.
    init(needsWakeWord: Bool, bargeIn: Bool, wakeWordTimeout: TimeInterval) {
        self.needsWakeWord = needsWakeWord
        self.bargeIn = bargeIn
        self.wakeWordTimeout = wakeWordTimeout
        isAsleep = needsWakeWord
    }

    /// What the session says whenever it is idle again.
    var idle: VoiceEvent { needsWakeWord ? .waitingForWakeWord : .listening }

    /// The session starts.
    func start() -> [Action] {
        [.emit(idle)]
    }

    /// A spotter time (from the spotter's own clock) as a stream time.
    func streamTime(ofSpotterTime time: TimeInterval) -> TimeInterval {
        spotterOrigin + time
    }

    /// The spotter heard the phrase at stream time `time`; the request may begin at `resumeAt`
    /// (the end of the chunk it was heard in). The phrase is also how the user talks over the
    /// agent: it stops the answer.
    mutating func wakeWordDetected(
        phrase: String,
        at time: TimeInterval,
        resumeAt: TimeInterval,
        turnFinished: Bool
    ) -> [Action] {
        guard isAsleep else { return [] }
        isAsleep = false
        waitingSince = resumeAt
        return [.emit(.wakeWord(phrase: phrase, time: time))] + interrupt(at: time, turnFinished: turnFinished)
    }

    /// A chunk arrives at stream time `now` while awake: a request that did not begin within the
    /// timeout sends the session back to sleep.
    mutating func chunkArrives(at now: TimeInterval) -> [Action] {
        guard !isAsleep, let since = waitingSince, now - since > wakeWordTimeout else { return [] }
        return sleep(at: now) + [.emit(.waitingForWakeWord)]
    }

    /// What the segmenter decided for the audio up to stream time `now`.
    mutating func segmented(
        _ actions: [UtteranceSegmenter.Action],
        at now: TimeInterval,
        turnFinished: Bool
    ) -> [Action] {
        var result: [Action] = []
        // A turn started in this batch has not finished, whatever the snapshot said.
        var finished = turnFinished
        for action in actions {
            switch action {
            case .bargeIn(let time):
                result += interrupt(at: time, turnFinished: finished)
            case .speechStarted(let time):
                result += interrupt(at: time, turnFinished: finished)
                // A new utterance: the next turn may be interrupted in its turn.
                interrupted = false
                waitingSince = nil
                result.append(.emit(.speechStarted(time: time)))
            case .speechEnded(let time):
                if needsWakeWord { waitingSince = time }
                result.append(.emit(.speechEnded(time: time)))
            case .endOfTurn(let audio, let endTime, let useSpeculation):
                result.append(.startTurn(audio, endTime: endTime, useSpeculation: useSpeculation))
                hasTurn = true
                finished = false
                // One request per wake phrase.
                result += sleep(at: now)
            case .speculate(let audio):
                result.append(.speculate(audio))
            case .cancelSpeculation:
                result.append(.cancelSpeculation)
            case .transcribePartial(let audio):
                result.append(.transcribePartial(audio))
            }
        }
        return result
    }

    /// Barge-in: stops a turn that is still running, once.
    private mutating func interrupt(at time: TimeInterval, turnFinished: Bool) -> [Action] {
        guard bargeIn, !interrupted, hasTurn, !turnFinished else { return [] }
        interrupted = true
        return [.stopTurn, .emit(.interrupted(time: time))]
    }

    /// Back to waiting for the wake phrase (without one, nothing to do).
    private mutating func sleep(at now: TimeInterval) -> [Action] {
        guard needsWakeWord, !isAsleep else { return [] }
        isAsleep = true
        waitingSince = nil
        spotterOrigin = now
        return [.resetSpotter]
    }
}
