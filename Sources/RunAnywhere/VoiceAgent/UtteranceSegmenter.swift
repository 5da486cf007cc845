#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Cuts a live audio stream into the user's utterances and decides, chunk by chunk, what
/// the voice session must do: barge in, start or cancel a speculative turn, ask for a
/// partial transcript, or end the user's turn.
///
/// It is pure: it sees only the audio and the VAD's verdict on it and keeps no clock of
/// its own, so every rule is unit-tested on synthetic input.
///
/// - **Pre-roll**: the last moments before speech starts are kept, so an utterance begins
///   ``Settings/preRoll`` before the VAD's speech start and the first syllable is not lost.
/// - **End of turn**: the VAD reports the speech end after the shortest wait the
///   ``EndOfTurnPolicy`` allows; the turn then ends once the silence is as long as the
///   policy asks for the transcript so far (a finished question ends sooner than a trailing
///   "and"). Speech resuming before that continues the same utterance. The utterance is
///   trimmed to 0.2 s after the last speech rather than the whole silence that confirmed it.
/// - **Speculation**: the first silent chunk inside an utterance asks the session to get
///   ahead with what was said so far (transcribe it, and answer it behind a closed gate);
///   by the time the turn is decided, the answer is usually on its way. Speech resuming
///   cancels it; it is used only if it started in the very silence that ended the turn.
/// - **Barge-in**: a run of voiced chunks of ``Settings/bargeInSpeechDuration`` asks to
///   interrupt the agent at once, before the VAD has confirmed a whole utterance.
/// - **Partials**: at most one per second of new speech, and never while one is in flight.
struct UtteranceSegmenter: Sendable {
    struct Settings: Sendable, Equatable {
        var threshold: Float
        var minSpeechDuration: TimeInterval
        var preRoll: TimeInterval
        var bargeInSpeechDuration: TimeInterval
        var partialTranscripts: Bool
        var partialInterval: TimeInterval = 1
        var endOfTurn: EndOfTurnPolicy
        /// The wait when the policy has nothing to go on: the VAD's own silence.
        var defaultSilence: TimeInterval

        init(_ configuration: VoiceAgentConfiguration) {
            threshold = configuration.vad.threshold
            endOfTurn = configuration.endOfTurn
            defaultSilence = configuration.vad.minSilenceDuration
            minSpeechDuration = configuration.vad.minSpeechDuration
            preRoll = configuration.preRoll
            bargeInSpeechDuration = configuration.bargeInSpeechDuration
            partialTranscripts = configuration.partialTranscripts
        }
    }

    /// What the session must do, in order.
    enum Action: Sendable, Equatable {
        /// The user has been speaking for the barge-in duration, since `at` (stream seconds).
        case bargeIn(at: TimeInterval)
        /// The VAD confirmed speech starting at `at`: a new utterance is open.
        case speechStarted(at: TimeInterval)
        /// The user's speech ended at `at`, and the silence since is long enough to end the turn.
        case speechEnded(at: TimeInterval)
        /// The user's turn: the utterance, and whether the speculation in flight is of it.
        case endOfTurn(PCMAudio, endTime: TimeInterval, useSpeculation: Bool)
        /// Get ahead with what was said so far: the user paused.
        case speculate(PCMAudio)
        /// The speculation is stale: the user went on speaking.
        case cancelSpeculation
        /// Transcribe the utterance so far for a partial transcript.
        case transcribePartial(PCMAudio)
    }

    let settings: Settings
    /// The stream's length so far, in seconds.
    private(set) var streamTime: TimeInterval = 0
    /// The last moments before any utterance, for the pre-roll.
    private var recent = PCMAudio(samples: [], sampleRate: 16_000)
    private var utterance: PCMAudio?
    private var utteranceStart: TimeInterval = 0
    private var lastPartial: TimeInterval = 0
    private var voicedRun: TimeInterval = 0
    /// When the speculation in flight started, in stream seconds.
    private var earlyFrom: TimeInterval?
    /// Where the silence began that the VAD reported as the end of speech, while the
    /// policy is still waiting to end the turn.
    private var pendingEnd: TimeInterval?

    init(settings: Settings) {
        self.settings = settings
    }

    /// Whether an utterance is open.
    var isInUtterance: Bool { utterance != nil }

    /// Feeds one chunk of 16 kHz mono audio and the VAD's verdict on it.
    ///
    /// `partialInFlight` tells whether the partial transcription asked for last is still
    /// running; `transcript` is the speculation's transcript of the utterance, once known.
    mutating func feed(
        _ audio: PCMAudio,
        vad result: VADResult,
        partialInFlight: Bool,
        transcript: String? = nil
    ) -> [Action] {
        var actions: [Action] = []
        streamTime += audio.duration
        if utterance != nil {
            utterance!.append(audio)
        } else {
            recent.append(audio)
            let keep = settings.preRoll + settings.minSpeechDuration + 0.2
            if recent.duration > keep { recent = recent.slice(from: recent.duration - keep, to: recent.duration) }
        }
        let voiced = result.probability >= settings.threshold
        voicedRun = voiced ? voicedRun + audio.duration : 0
        if voicedRun >= settings.bargeInSpeechDuration { actions.append(.bargeIn(at: streamTime - voicedRun)) }

        for event in result.events {
            switch event.kind {
            case .speechStarted:
                if utterance != nil {
                    // The user only paused: the same utterance goes on.
                    pendingEnd = nil
                    continue
                }
                actions.append(.speechStarted(at: event.time))
                // Keep what preceded the VAD's decision, from `preRoll` before the speech began.
                let from = max(0, (event.time - settings.preRoll) - (streamTime - recent.duration))
                let opened = recent.slice(from: from, to: recent.duration)
                utterance = opened
                utteranceStart = streamTime - opened.duration
                lastPartial = 0
                recent = PCMAudio(samples: [], sampleRate: 16_000)
            case .speechEnded:
                if utterance != nil { pendingEnd = event.time }
            }
        }

        // Only silence ends a turn: a voiced chunk may be the speaker going on, before the
        // VAD has heard enough of it to say so.
        if let end = pendingEnd, !voiced {
            let wait = settings.endOfTurn.silence(after: transcript, fallback: settings.defaultSilence)
            if streamTime - end >= wait - 1e-9 { actions += closeUtterance(endingAt: end) }
        }
        if let spoken = utterance, !voiced, earlyFrom == nil {
            earlyFrom = streamTime - audio.duration
            actions.append(.speculate(spoken))
        } else if utterance != nil, voiced, earlyFrom != nil {
            earlyFrom = nil
            actions.append(.cancelSpeculation)
        }
        if settings.partialTranscripts, voiced, let spoken = utterance, !partialInFlight,
            spoken.duration - lastPartial >= settings.partialInterval
        {
            lastPartial = spoken.duration
            actions.append(.transcribePartial(spoken))
        }
        return actions
    }

    /// Ends the open utterance at `end` (where the silence began): the turn, with the
    /// speculation if it is of this very utterance.
    private mutating func closeUtterance(endingAt end: TimeInterval) -> [Action] {
        guard let spoken = utterance else { return [] }
        utterance = nil
        pendingEnd = nil
        var actions: [Action] = [.speechEnded(at: end)]
        // End the utterance a little after the speech, not after the whole silence.
        let cut = min(spoken.duration, end - utteranceStart + 0.2)
        // The speculation is good if it started in this very silence.
        let usable = earlyFrom.map { $0 >= end - 0.05 } ?? false
        if earlyFrom != nil, !usable { actions.append(.cancelSpeculation) }
        earlyFrom = nil
        actions.append(.endOfTurn(spoken.slice(from: 0, to: cut), endTime: end, useSpeculation: usable))
        return actions
    }

    /// The input ended; `final` is the VAD's closing event, if speech was still open.
    mutating func finish(vad final: SpeechActivityEvent?) -> [Action] {
        guard utterance != nil else { return [] }
        if let end = pendingEnd { return closeUtterance(endingAt: end) }
        guard let final else { return [] }
        // The speech ran to the end of the input: no silence began, so nothing speculated is of it.
        if earlyFrom != nil {
            earlyFrom = nil
            return [.cancelSpeculation] + closeUtterance(endingAt: final.time)
        }
        return closeUtterance(endingAt: final.time)
    }
}
