import Foundation

/// Cuts a live audio stream into the user's utterances and decides, chunk by chunk, what
/// the voice session must do: barge in, start or cancel an early transcription, ask for a
/// partial transcript, or end the user's turn.
///
/// It is pure: it sees only the audio and the VAD's verdict on it and keeps no clock of
/// its own, so every rule is unit-tested on synthetic input.
///
/// - **Pre-roll**: the last moments before speech starts are kept, so an utterance begins
///   ``Settings/preRoll`` before the VAD's speech start and the first syllable is not lost.
/// - **End of turn**: an utterance ends at the VAD's speech end, trimmed to 0.2 s after the
///   last speech rather than the whole silence that confirmed it.
/// - **Early transcription**: the first silent chunk inside an utterance asks for a
///   transcription of what was said so far; by the time the VAD confirms the end, it is
///   usually ready. Speech resuming cancels it; it is reused only if it started in the
///   very silence that ended the turn.
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

        init(_ configuration: VoiceAgentConfiguration) {
            threshold = configuration.vad.threshold
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
        /// The VAD confirmed speech ending at `at`.
        case speechEnded(at: TimeInterval)
        /// The user's turn: the utterance, and whether the early transcription in flight is of it.
        case endOfTurn(AudioBuffer, endTime: TimeInterval, useEarlyTranscription: Bool)
        /// Transcribe what was said so far: the user paused.
        case transcribeEarly(AudioBuffer)
        /// The early transcription is stale: the user went on speaking.
        case cancelEarlyTranscription
        /// Transcribe the utterance so far for a partial transcript.
        case transcribePartial(AudioBuffer)
    }

    let settings: Settings
    /// The stream's length so far, in seconds.
    private(set) var streamTime: TimeInterval = 0
    /// The last moments before any utterance, for the pre-roll.
    private var recent = AudioBuffer(samples: [], sampleRate: 16_000)
    private var utterance: AudioBuffer?
    private var utteranceStart: TimeInterval = 0
    private var lastPartial: TimeInterval = 0
    private var voicedRun: TimeInterval = 0
    /// When the early transcription in flight started, in stream seconds.
    private var earlyFrom: TimeInterval?

    init(settings: Settings) {
        self.settings = settings
    }

    /// Whether an utterance is open.
    var isInUtterance: Bool { utterance != nil }

    /// Feeds one chunk of 16 kHz mono audio and the VAD's verdict on it.
    ///
    /// `partialInFlight` tells whether the partial transcription asked for last is still running.
    mutating func feed(_ audio: AudioBuffer, vad result: VADResult, partialInFlight: Bool) -> [Action] {
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
                actions.append(.speechStarted(at: event.time))
                // Keep what preceded the VAD's decision, from `preRoll` before the speech began.
                let from = max(0, (event.time - settings.preRoll) - (streamTime - recent.duration))
                let opened = recent.slice(from: from, to: recent.duration)
                utterance = opened
                utteranceStart = streamTime - opened.duration
                lastPartial = 0
                recent = AudioBuffer(samples: [], sampleRate: 16_000)
            case .speechEnded:
                actions.append(.speechEnded(at: event.time))
                guard let spoken = utterance else { continue }
                utterance = nil
                // End the utterance a little after the speech, not after the whole silence.
                let end = min(spoken.duration, event.time - utteranceStart + 0.2)
                // The early transcription is good if it started in this very silence.
                let usable = earlyFrom.map { $0 >= event.time - 0.05 } ?? false
                if earlyFrom != nil, !usable { actions.append(.cancelEarlyTranscription) }
                earlyFrom = nil
                actions.append(
                    .endOfTurn(
                        spoken.slice(from: 0, to: end),
                        endTime: event.time,
                        useEarlyTranscription: usable
                    )
                )
            }
        }

        if let spoken = utterance, !voiced, earlyFrom == nil {
            earlyFrom = streamTime - audio.duration
            actions.append(.transcribeEarly(spoken))
        } else if utterance != nil, voiced, earlyFrom != nil {
            earlyFrom = nil
            actions.append(.cancelEarlyTranscription)
        }
        if settings.partialTranscripts, let spoken = utterance, !partialInFlight,
            spoken.duration - lastPartial >= settings.partialInterval
        {
            lastPartial = spoken.duration
            actions.append(.transcribePartial(spoken))
        }
        return actions
    }

    /// The input ended; `final` is the VAD's closing event, if speech was still open.
    mutating func finish(vad final: SpeechActivityEvent?) -> [Action] {
        guard let final, let spoken = utterance else { return [] }
        utterance = nil
        if earlyFrom != nil {
            earlyFrom = nil
            return [
                .speechEnded(at: final.time), .cancelEarlyTranscription,
                .endOfTurn(
                    spoken,
                    endTime: final.time,
                    useEarlyTranscription: false
                ),
            ]
        }
        return [.speechEnded(at: final.time), .endOfTurn(spoken, endTime: final.time, useEarlyTranscription: false)]
    }
}
