import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BenchCommand {
    /// The voice agent's latency from the true end of speech to the first audio of the reply,
    /// over real recordings replayed at real-time pace, and how often it cut in on a pause.
    struct Voice: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "voice",
            abstract: "Voice agent latency: the end of speech to the first audio of the reply, per turn.",
            discussion: """
                Replays recordings at real-time pace through the voice agent. The latency that counts, \
                source_acoustic_end_to_first_audio_ms, runs from each recording's acoustic end to the first \
                audio of the reply to it, so it includes the silence the agent waits before deciding the user \
                has finished. The acoustic end is taken from the recording itself, not from the agent: \
                \(VoiceBenchRecordings.acousticEndMethod). vad_end_to_first_audio_ms runs from the end of \
                speech by the agent's own VAD, end_of_speech_to_first_audio_ms from its decision that the user \
                had finished. A turn that played no audio, or a recording with no reply after its acoustic \
                end, is missing, never 0 ms: it ranks as infinitely late, so a percentile that falls on it is \
                null. With the real-speech set (the default when it is installed) the user's turns are real \
                human recordings; --speech synthetic speaks fixed questions with the agent's own voice. \
                --pauses replays recordings with pauses inside a sentence and counts the turns the agent \
                ended while the speaker was only pausing.
                """
        )

        static let questions = [
            "What is the capital of France?", "Can you name a fruit that is yellow?", "How many days are in a week?",
            "What color is the sky on a clear day?", "Tell me a good name for a cat.", "What do bees make?",
            "Which animal says moo?", "What is the opposite of hot?", "Name a planet in our solar system.",
            "What do people drink in the morning?", "Where does the sun rise?", "What is frozen water called?",
        ]

        enum Speech: String, ExpressibleByArgument, CaseIterable {
            case real
            case synthetic
        }

        @OptionGroup var output: BenchOutputOptions
        @OptionGroup var models: VoiceModelOptions
        @Option(help: "Turns to measure.") var turns = 12
        @Option(help: "Silence after each turn, in seconds (room for the reply to be computed).") var gap = 2.5
        @Option(help: "The user's turns: real recordings (default when installed) or synthetic questions.")
        var speech: Speech?
        @Option(help: "Recordings with a pause inside a sentence, for the false-cut rate (0: none).")
        var pauses = 12
        @Option(help: "Real-speech folder (default: $\(SpeechCorpus.environmentKey)).") var set: String?

        /// Percentiles of a latency over the turns or clips it is taken for. A turn or clip with
        /// no value ranks as infinitely late, so a missing reply can only push a figure up, and a
        /// figure that lands on one is null: it must fail a target, and 0 ms would pass any.
        struct Latency: Encodable {
            /// The turns or clips with a value.
            var measured: Int
            /// The turns or clips without one.
            var missing: Int
            /// The median; nil when it falls on a missing value.
            var p50Ms: Double?
            /// The 95th percentile (nearest rank); nil when it falls on a missing value.
            var p95Ms: Double?
            /// The largest value; nil when any is missing.
            var maxMs: Double?

            /// Spelled out because ``encode(to:)`` is written by hand.
            private enum CodingKeys: String, CodingKey {
                case measured
                case missing
                case p50Ms
                case p95Ms
                case maxMs
            }

            /// The figures over `values`, nil standing for a missing one.
            init(_ values: [Double?]) {
                measured = values.count(where: { $0 != nil })
                missing = values.count - measured
                // CLI.median and CLI.percentile give 0 for no values at all: that must not read as a latency.
                guard !values.isEmpty else { return }
                let ranked = values.map { $0 ?? .infinity }
                p50Ms = Self.finite(CLI.median(ranked))
                p95Ms = Self.finite(CLI.percentile(ranked, 0.95))
                maxMs = ranked.max().flatMap { Self.finite($0) }
            }

            /// Writes a missing figure as null rather than leaving the key out, so a reader cannot
            /// mistake the figure for one that was never part of the report.
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(measured, forKey: .measured)
                try container.encode(missing, forKey: .missing)
                try container.encode(p50Ms, forKey: .p50Ms)
                try container.encode(p95Ms, forKey: .p95Ms)
                try container.encode(maxMs, forKey: .maxMs)
            }

            /// The figures for people, with how many of `unit` had no value.
            func summary(_ unit: String) -> String {
                let figures = [Self.figure("p50", p50Ms), Self.figure("p95", p95Ms), Self.figure("max", maxMs)]
                let counted = missing == 0 ? "" : " (\(missing) of \(measured + missing) \(unit) without a value)"
                return figures.joined(separator: ", ") + counted
            }

            /// One figure for people, or that it is missing.
            private static func figure(_ name: String, _ value: Double?) -> String {
                guard let value else { return "\(name) missing" }
                return "\(name) \(CLI.format(value, 0)) ms"
            }

            /// `value` unless it is the infinity a missing value ranks as.
            private static func finite(_ value: Double) -> Double? {
                value.isFinite ? value : nil
            }
        }

        /// One clip's latency from its acoustic end in the source recording to the first audio of
        /// the reply to it.
        struct ClipLatency: Encodable {
            /// What became of the clip.
            enum Outcome: String, Encodable {
                /// A reply started at or after the acoustic end.
                case measured
                /// No turn that played audio answered the clip.
                case noReply = "no_reply"
                /// Every reply to the clip started before its acoustic end: the agent talked over it.
                case repliedBeforeAcousticEnd = "replied_before_acoustic_end"
                /// No frame of the clip reaches the threshold, so it has no acoustic end.
                case noSpeechAboveThreshold = "no_speech_above_threshold"
            }

            /// The clip's id.
            var id: String
            /// Where the clip starts in the replayed recording, in seconds.
            var offsetSeconds: Double
            /// The acoustic end, in seconds from the clip's start.
            var acousticEndSeconds: Double?
            /// Whether the clip's last frame still reaches the threshold (see ``PlacedClip/endsAboveThreshold``).
            var endsAboveThreshold: Bool
            /// From the acoustic end to the first audio of the reply; nil unless `outcome` is `measured`.
            var sourceAcousticEndToFirstAudioMs: Double?
            /// What became of the clip.
            var outcome: Outcome

            /// `clip`'s latency, given the recording's time zero and when each reply to it was first heard.
            init(_ clip: PlacedClip, origin: ContinuousClock.Instant?, replies: [ContinuousClock.Instant]) {
                id = clip.id
                offsetSeconds = clip.offset
                acousticEndSeconds = clip.acousticEnd
                endsAboveThreshold = clip.endsAboveThreshold
                guard let end = clip.acousticEnd else {
                    outcome = .noSpeechAboveThreshold
                    return
                }
                guard let origin else {
                    outcome = .noReply
                    return
                }
                let acousticEnd = origin + .seconds(clip.offset + end)
                // A reply that started earlier was heard while the recording was still sounding;
                // the one the user waits for after finishing is the first to start later.
                guard let firstAudio = replies.first(where: { $0 >= acousticEnd }) else {
                    outcome = replies.isEmpty ? .noReply : .repliedBeforeAcousticEnd
                    return
                }
                sourceAcousticEndToFirstAudioMs = acousticEnd.duration(to: firstAudio).milliseconds
                outcome = .measured
            }
        }

        struct Report: Encodable {
            var speech: String
            var turns: Int
            var speculativeTurns: Bool
            var adaptiveEndOfTurn: Bool
            /// How the acoustic end of each clip was found.
            var acousticEndMethod: String
            /// The fixed level of the acoustic end, in dBFS.
            var acousticEndThresholdDbfs: Float
            /// The frame the acoustic end is measured in, in milliseconds.
            var acousticEndFrameMs: Double
            /// From each clip's acoustic end in the source recording: the figures the targets apply to.
            var sourceAcousticEndToFirstAudioMs: Latency
            /// From the end of speech by the agent's own VAD, per turn.
            var vadEndToFirstAudioMs: Latency
            /// From the agent's decision that the user had finished, per turn.
            var endOfSpeechToFirstAudioMs: Latency
            /// Turns that completed without playing audio: missing from the latencies, never 0 ms.
            var turnsWithoutAudio: Int
            /// Clips whose last frame still reaches the threshold, so their acoustic end is only
            /// where the file stops.
            var clipsEndingAboveThreshold: Int
            var medianSttMs: Double
            var medianLlmFirstTokenMs: Double
            var medianLlmFirstSentenceMs: Double
            var medianTtsFirstChunkMs: Double
            var medianSilenceWaitMs: Double
            /// The agent's own timings; a turn in `turnsWithoutAudio` has 0 for its first-audio
            /// figures there, which the latencies above leave out.
            var perTurn: [VoiceTurnTimings]
            /// Each clip's acoustic end and the latency of the reply to it, in the order replayed.
            var perClip: [ClipLatency]
            var clips: [String]
            var transcripts: [String]
            var replies: [String]
            var falseCuts: FalseCutReport?
        }

        func validate() throws {
            guard turns >= 1 else { throw ValidationError("--turns must be at least 1") }
            guard gap >= 1 else { throw ValidationError("--gap must be at least 1 s") }
            guard pauses >= 0 else { throw ValidationError("--pauses must be 0 or more") }
        }

        func execute() async throws {
            try await CLI.start(output.global)
            var configuration = models.configuration()
            // Turns must not wait for each other's playback: the recorder below plays instantly.
            configuration.bargeIn = false
            try await RunAnywhere.initializeVoiceAgent(configuration)
            let corpus = try realSpeech()
            let (recording, clips) =
                if let corpus {
                    try VoiceBenchRecordings.questions(from: corpus, turns: turns, gap: gap)
                } else {
                    try await synthesizedQuestions(configuration)
                }
            let replay = try await Self.replay(recording)
            let heard = replay.heardTurns()
            guard !heard.isEmpty else { throw SDKException(.internalError, "No turn completed") }
            var falseCuts: FalseCutReport?
            if let corpus, pauses > 0 {
                // A fresh conversation, so the pause recordings do not answer in the questions' context.
                try await RunAnywhere.initializeVoiceAgent(configuration)
                falseCuts = try await VoiceBenchRecordings.falseCuts(corpus: corpus, count: pauses, gap: gap)
            }
            let results = heard.map(\.result)
            let timings = results.map(\.timings)
            let perClip = Self.clipLatencies(clips, turns: heard, origin: replay.origin)
            let source = Latency(perClip.map(\.sourceAcousticEndToFirstAudioMs))
            let vad = Latency(heard.map(\.vadEndToFirstAudioMs))
            let decided = Latency(heard.map(\.decisionToFirstAudioMs))
            let report = Report(
                speech: corpus == nil ? "synthetic" : "real",
                turns: results.count,
                speculativeTurns: configuration.speculativeTurns,
                adaptiveEndOfTurn: configuration.endOfTurn.adaptive,
                acousticEndMethod: VoiceBenchRecordings.acousticEndMethod,
                acousticEndThresholdDbfs: VoiceBenchRecordings.acousticThresholdDBFS,
                acousticEndFrameMs: VoiceBenchRecordings.acousticFrameDuration * 1000,
                sourceAcousticEndToFirstAudioMs: source,
                vadEndToFirstAudioMs: vad,
                endOfSpeechToFirstAudioMs: decided,
                turnsWithoutAudio: heard.count(where: { $0.firstAudio == nil }),
                clipsEndingAboveThreshold: clips.count(where: \.endsAboveThreshold),
                medianSttMs: CLI.median(timings.map(\.sttMs)),
                medianLlmFirstTokenMs: CLI.median(timings.map(\.llmFirstTokenMs)),
                medianLlmFirstSentenceMs: CLI.median(timings.map(\.llmFirstSentenceMs)),
                medianTtsFirstChunkMs: CLI.median(timings.map(\.ttsFirstChunkMs)),
                medianSilenceWaitMs: CLI.median(timings.map(\.silenceWaitMs)),
                perTurn: timings,
                perClip: perClip,
                clips: clips.map(\.id),
                transcripts: results.map(\.transcript),
                replies: results.map(\.responseText),
                falseCuts: falseCuts
            )
            if output.json { return try CLI.printJSON(report) }
            print(
                "voice agent benchmark — \(results.count) turns over \(clips.count) clips of \(report.speech) speech"
            )
            print("source acoustic end → first audio: \(source.summary("clips"))")
            print("  acoustic end: \(VoiceBenchRecordings.acousticEndMethod)")
            print("agent's VAD end of speech → first audio: \(vad.summary("turns"))")
            print("agent's end-of-turn decision → first audio: \(decided.summary("turns"))")
            if report.turnsWithoutAudio > 0 {
                print("turns without audio: \(report.turnsWithoutAudio) (missing from the latencies, not 0 ms)")
            }
            let unanswered = perClip.filter { $0.outcome != .measured }
            if !unanswered.isEmpty {
                let outcomes = unanswered.map { "\($0.id): \($0.outcome.rawValue)" }
                print("clips without a reply after their acoustic end: \(outcomes.joined(separator: ", "))")
            }
            if report.clipsEndingAboveThreshold > 0 {
                // Such a clip's true end of speech may be earlier: its figure flatters the agent.
                print(
                    "note: \(report.clipsEndingAboveThreshold) clips still reach the threshold in their last frame: "
                        + "their acoustic end is where the file stops, so their latency may be understated"
                )
            }
            print(
                "medians: silence waited \(CLI.format(report.medianSilenceWaitMs, 0)) ms, STT \(CLI.format(report.medianSttMs, 0)) ms, LLM first token \(CLI.format(report.medianLlmFirstTokenMs, 0)) ms, first sentence \(CLI.format(report.medianLlmFirstSentenceMs, 0)) ms, TTS first chunk \(CLI.format(report.medianTtsFirstChunkMs, 0)) ms"
            )
            if let falseCuts {
                print(
                    "false cuts: \(falseCuts.cuts) of \(falseCuts.pauses) pauses inside a sentence (\(CLI.format(falseCuts.rate * 100, 1))%) over \(falseCuts.recordings) recordings"
                )
            }
        }

        /// Each clip's latency from its acoustic end to the first audio of the reply to it.
        ///
        /// A turn answers the clip its own end of speech fell in (from the clip's start to the
        /// next one's): the agent's VAD only picks which clip a reply belongs to, never where the
        /// clip ended, and a late reply to one clip is not taken for a quick one to the next.
        static func clipLatencies(
            _ clips: [PlacedClip],
            turns: [HeardTurn],
            origin: ContinuousClock.Instant?
        ) -> [ClipLatency] {
            var replies: [Int: [ContinuousClock.Instant]] = [:]
            if let origin {
                for turn in turns {
                    guard let firstAudio = turn.firstAudio, let vadEndMs = turn.vadEndToFirstAudioMs else { continue }
                    let speechEnded = origin.duration(to: firstAudio).seconds - vadEndMs / 1000
                    guard let clip = clips.lastIndex(where: { $0.offset <= speechEnded }) else { continue }
                    replies[clip, default: []].append(firstAudio)
                }
            }
            var latencies: [ClipLatency] = []
            for (index, clip) in clips.enumerated() {
                latencies.append(ClipLatency(clip, origin: origin, replies: replies[index] ?? []))
            }
            return latencies
        }

        /// The real-speech set, unless synthetic speech was asked for or none is installed.
        private func realSpeech() throws -> SpeechCorpus? {
            if speech == .synthetic { return nil }
            if let set { return try SpeechCorpus(folder: URL(fileURLWithPath: set)) }
            do {
                return try SpeechCorpus.bootstrapped()
            } catch {
                if speech == .real { throw error }
                CLI.printError("note: no real-speech set (\(error.message)); speaking synthetic questions")
                return nil
            }
        }

        /// The questions, spoken by the agent's own voice, each followed by silence; and where
        /// each sits in the recording.
        private func synthesizedQuestions(
            _ configuration: VoiceAgentConfiguration
        ) async throws -> (PCMAudio, [PlacedClip]) {
            var recording = PCMAudio.silence(duration: 0.5, sampleRate: 16_000)
            var placed: [PlacedClip] = []
            for index in 0..<turns {
                let question = Self.questions[index % Self.questions.count]
                let spoken = try await RunAnywhere.synthesize(question, options: configuration.ttsOptions).audio
                let id = "synthetic-\(index)"
                placed.append(VoiceBenchRecordings.placement(of: spoken, id: id, at: recording.duration))
                recording.append(spoken.speechInput())
                recording.append(.silence(duration: gap, sampleRate: 16_000))
            }
            return (recording, placed)
        }

        /// A completed turn and when it was first heard.
        struct HeardTurn: Sendable {
            /// The turn.
            var result: VoiceAgentResult
            /// When its first audio started playing; nil when it played none.
            var firstAudio: ContinuousClock.Instant?

            /// From the end of speech by the agent's own VAD to the first audio; nil when the turn
            /// played nothing (the agent's timings then say 0).
            var vadEndToFirstAudioMs: Double? {
                firstAudio == nil ? nil : result.timings.acousticEndToFirstAudioMs
            }

            /// From the agent's end-of-turn decision to the first audio; nil when the turn played nothing.
            var decisionToFirstAudioMs: Double? {
                firstAudio == nil ? nil : result.timings.endOfSpeechToFirstAudioMs
            }
        }

        /// What a replay produced, dated on the continuous clock.
        struct Replay: Sendable {
            /// Every event, in order.
            var events: [VoiceEvent]
            /// When the recording's first sample was "captured"; nil when none was read.
            var origin: ContinuousClock.Instant?
            /// Every buffer the agent played, in order, with when it started.
            var played: [AudioRecorderOutput.Played]

            /// The completed turns, in order, each with the start of its first played buffer.
            func heardTurns() -> [HeardTurn] {
                var turns: [HeardTurn] = []
                var chunks = 0
                var firstChunk: Int?
                for event in events {
                    switch event {
                    case .audioChunk:
                        // A chunk is reported just before it is played, so the n-th reported is the n-th played.
                        if firstChunk == nil { firstChunk = chunks }
                        chunks += 1
                    case .turnCompleted(let result):
                        // Without barge-in turns are heard one after another: the chunks since the
                        // previous turn completed are this turn's.
                        var firstAudio: ContinuousClock.Instant?
                        if let firstChunk, firstChunk < played.count { firstAudio = played[firstChunk].startedAt }
                        turns.append(HeardTurn(result: result, firstAudio: firstAudio))
                        firstChunk = nil
                    default:
                        break
                    }
                }
                return turns
            }
        }

        /// Plays `recording` to the voice agent at real-time pace; every event, the recording's
        /// time zero and what was played.
        static func replay(_ recording: PCMAudio) async throws -> Replay {
            var events: [VoiceEvent] = []
            let input = ClockedReplayInput(audio: recording)
            let sink = AudioRecorderOutput(realTime: false)
            for await event in RunAnywhere.streamVoiceAgent(input: input, output: sink) {
                if case .error(let error) = event { throw error }
                events.append(event)
            }
            return Replay(events: events, origin: input.origin.instant, played: sink.played)
        }
    }
}

/// Replays a recording like ``WAVFileAudioInput`` at real-time pace, and learns the instant its
/// first sample was "captured", so a time in the recording can be put on the clock playback is
/// dated by.
struct ClockedReplayInput: AudioInput {
    /// Where the recording's time zero falls, learned from the chunks as they are read.
    final class Origin: Sendable {
        private let state = Mutex<(instant: ContinuousClock.Instant?, elapsed: TimeInterval)>((nil, 0))

        /// The recording's time zero; nil until a chunk has been read.
        var instant: ContinuousClock.Instant? {
            state.withLock { $0.instant }
        }

        /// Takes in the next chunk of the recording.
        func note(_ chunk: CapturedAudio) {
            state.withLock { value in
                value.elapsed += chunk.audio.duration
                let zero = chunk.end - .seconds(value.elapsed)
                // A chunk may be dated late, never early: the earliest estimate is the truest, as
                // the voice session reckons its own.
                value.instant = min(value.instant ?? zero, zero)
            }
        }
    }

    /// The recording, replayed.
    let replayed: WAVFileAudioInput
    /// The recording's time zero on the continuous clock.
    let origin = Origin()

    /// Replays `audio` at real-time pace.
    init(audio: PCMAudio) {
        replayed = WAVFileAudioInput(audio: audio, pace: .realTime)
    }

    /// The recording in chunks, at real-time pace.
    func chunks(duration: TimeInterval) -> AsyncThrowingStream<PCMAudio, any Error> {
        capturedChunks(duration: duration).mapped(\.audio)
    }

    /// The recording in chunks dated when their last sample would have been recorded, noting
    /// the time zero as they pass.
    func capturedChunks(duration: TimeInterval) -> AsyncThrowingStream<CapturedAudio, any Error> {
        let origin = self.origin
        return replayed.capturedChunks(duration: duration).mapped { (chunk: CapturedAudio) -> CapturedAudio in
            origin.note(chunk)
            return chunk
        }
    }
}
