import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

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
                acoustic_end_to_first_audio_ms, runs from the last voiced audio to the first audio of the \
                reply, so it includes the silence the agent waits before deciding the user has finished; \
                end_of_speech_to_first_audio_ms runs from that decision. With the real-speech set (the \
                default when it is installed) the user's turns are real human recordings; --speech \
                synthetic speaks fixed questions with the agent's own voice. --pauses replays recordings \
                with pauses inside a sentence and counts the turns the agent ended while the speaker was \
                only pausing.
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

        struct Latency: Encodable {
            var p50Ms: Double
            var p95Ms: Double
            var maxMs: Double

            init(_ values: [Double]) {
                p50Ms = CLI.median(values)
                p95Ms = CLI.percentile(values, 0.95)
                maxMs = values.max() ?? 0
            }
        }

        struct Report: Encodable {
            var speech: String
            var turns: Int
            var speculativeTurns: Bool
            var adaptiveEndOfTurn: Bool
            /// From the last voiced audio: the figures the targets apply to.
            var p50AcousticEndToFirstAudioMs: Double
            var p95AcousticEndToFirstAudioMs: Double
            var maxAcousticEndToFirstAudioMs: Double
            /// From the agent's decision that the user had finished.
            var p50EndOfSpeechToFirstAudioMs: Double
            var p95EndOfSpeechToFirstAudioMs: Double
            var maxEndOfSpeechToFirstAudioMs: Double
            var medianSttMs: Double
            var medianLlmFirstTokenMs: Double
            var medianLlmFirstSentenceMs: Double
            var medianTtsFirstChunkMs: Double
            var medianSilenceWaitMs: Double
            var perTurn: [VoiceTurnTimings]
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
            let (recording, clipIds) =
                if let corpus {
                    try VoiceBenchRecordings.questions(from: corpus, turns: turns, gap: gap)
                } else {
                    try await synthesizedQuestions(configuration)
                }
            let (events, _) = try await Self.replay(recording)
            let results = events.compactMap { event -> VoiceAgentResult? in
                if case .turnCompleted(let result) = event { return result }
                return nil
            }
            guard !results.isEmpty else { throw SDKException(.internalError, "No turn completed") }
            var falseCuts: FalseCutReport?
            if let corpus, pauses > 0 {
                // A fresh conversation, so the pause recordings do not answer in the questions' context.
                try await RunAnywhere.initializeVoiceAgent(configuration)
                falseCuts = try await VoiceBenchRecordings.falseCuts(corpus: corpus, count: pauses, gap: gap)
            }
            let timings = results.map(\.timings)
            let acoustic = Latency(timings.map(\.acousticEndToFirstAudioMs))
            let decided = Latency(timings.map(\.endOfSpeechToFirstAudioMs))
            let report = Report(
                speech: corpus == nil ? "synthetic" : "real",
                turns: results.count,
                speculativeTurns: configuration.speculativeTurns,
                adaptiveEndOfTurn: configuration.endOfTurn.adaptive,
                p50AcousticEndToFirstAudioMs: acoustic.p50Ms,
                p95AcousticEndToFirstAudioMs: acoustic.p95Ms,
                maxAcousticEndToFirstAudioMs: acoustic.maxMs,
                p50EndOfSpeechToFirstAudioMs: decided.p50Ms,
                p95EndOfSpeechToFirstAudioMs: decided.p95Ms,
                maxEndOfSpeechToFirstAudioMs: decided.maxMs,
                medianSttMs: CLI.median(timings.map(\.sttMs)),
                medianLlmFirstTokenMs: CLI.median(timings.map(\.llmFirstTokenMs)),
                medianLlmFirstSentenceMs: CLI.median(timings.map(\.llmFirstSentenceMs)),
                medianTtsFirstChunkMs: CLI.median(timings.map(\.ttsFirstChunkMs)),
                medianSilenceWaitMs: CLI.median(timings.map(\.silenceWaitMs)),
                perTurn: timings,
                clips: clipIds,
                transcripts: results.map(\.transcript),
                replies: results.map(\.responseText),
                falseCuts: falseCuts
            )
            if output.json { return try CLI.printJSON(report) }
            print("voice agent benchmark — \(results.count) turns of \(report.speech) speech")
            print(
                "acoustic end of speech → first audio: p50 \(CLI.format(acoustic.p50Ms, 0)) ms, p95 \(CLI.format(acoustic.p95Ms, 0)) ms, max \(CLI.format(acoustic.maxMs, 0)) ms"
            )
            print(
                "agent's end-of-turn decision → first audio: p50 \(CLI.format(decided.p50Ms, 0)) ms, p95 \(CLI.format(decided.p95Ms, 0)) ms"
            )
            print(
                "medians: silence waited \(CLI.format(report.medianSilenceWaitMs, 0)) ms, STT \(CLI.format(report.medianSttMs, 0)) ms, LLM first token \(CLI.format(report.medianLlmFirstTokenMs, 0)) ms, first sentence \(CLI.format(report.medianLlmFirstSentenceMs, 0)) ms, TTS first chunk \(CLI.format(report.medianTtsFirstChunkMs, 0)) ms"
            )
            if let falseCuts {
                print(
                    "false cuts: \(falseCuts.cuts) of \(falseCuts.pauses) pauses inside a sentence (\(CLI.format(falseCuts.rate * 100, 1))%) over \(falseCuts.recordings) recordings"
                )
            }
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

        /// The questions, spoken by the agent's own voice, each followed by silence.
        private func synthesizedQuestions(
            _ configuration: VoiceAgentConfiguration
        ) async throws -> (AudioBuffer, [String]) {
            var recording = AudioBuffer.silence(duration: 0.5, sampleRate: 16_000)
            var ids: [String] = []
            for index in 0..<turns {
                let question = Self.questions[index % Self.questions.count]
                let spoken = try await RunAnywhere.synthesize(question, options: configuration.ttsOptions).audio
                recording.append(spoken.speechInput())
                recording.append(.silence(duration: gap, sampleRate: 16_000))
                ids.append("synthetic-\(index)")
            }
            return (recording, ids)
        }

        /// Plays `recording` to the voice agent at real-time pace; every event, and the reply audio.
        static func replay(_ recording: AudioBuffer) async throws -> ([VoiceEvent], AudioBuffer?) {
            var events: [VoiceEvent] = []
            let input = WAVFileAudioInput(audio: recording, pace: .realTime)
            let sink = AudioRecorderOutput(realTime: false)
            for await event in RunAnywhere.streamVoiceAgent(input: input, output: sink) {
                if case .error(let error) = event { throw error }
                events.append(event)
            }
            return (events, sink.audio)
        }
    }
}
