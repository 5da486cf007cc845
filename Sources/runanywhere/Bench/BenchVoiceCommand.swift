import ArgumentParser
import Foundation
import RunAnywhere

extension BenchCommand {
    /// End of speech → first audio of the voice agent, over a replayed conversation.
    struct Voice: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "voice",
            abstract: "Voice agent latency: the VAD's end of speech to the first audio of the reply, per turn."
        )

        static let questions = [
            "What is the capital of France?", "Can you name a fruit that is yellow?", "How many days are in a week?",
            "What color is the sky on a clear day?", "Tell me a good name for a cat.", "What do bees make?",
            "Which animal says moo?", "What is the opposite of hot?", "Name a planet in our solar system.",
            "What do people drink in the morning?", "Where does the sun rise?", "What is frozen water called?",
        ]

        @OptionGroup var output: BenchOutputOptions
        @OptionGroup var models: VoiceModelOptions
        @Option(help: "Turns to measure.") var turns = 10
        @Option(help: "Silence after each question, in seconds (room for the reply to be computed).") var gap = 2.5

        struct Report: Encodable {
            var turns: Int
            var p50EndOfSpeechToFirstAudioMs: Double
            var p95EndOfSpeechToFirstAudioMs: Double
            var maxEndOfSpeechToFirstAudioMs: Double
            var medianSttMs: Double
            var medianLlmFirstTokenMs: Double
            var medianLlmFirstSentenceMs: Double
            var medianTtsFirstChunkMs: Double
            var medianSilenceWaitMs: Double
            var perTurn: [VoiceTurnTimings]
            var transcripts: [String]
            var replies: [String]
        }

        func validate() throws {
            guard turns >= 1 else { throw ValidationError("--turns must be at least 1") }
        }

        func execute() async throws {
            try CLI.start(output.global)
            var configuration = models.configuration()
            // Turns must not wait for each other's playback: the recorder below plays instantly.
            configuration.bargeIn = false
            try await RunAnywhere.initializeVoiceAgent(configuration)
            // The questions, spoken by the agent's own voice, each followed by silence.
            var recording = AudioBuffer.silence(duration: 0.5, sampleRate: 16_000)
            for index in 0..<turns {
                let question = Self.questions[index % Self.questions.count]
                recording.append(try await RunAnywhere.synthesize(question, options: configuration.ttsOptions).audio)
                recording.append(.silence(duration: gap, sampleRate: 16_000))
            }
            var results: [VoiceAgentResult] = []
            let input = WAVFileAudioInput(audio: recording, pace: .realTime)
            for await event in RunAnywhere.streamVoiceAgent(input: input, output: AudioRecorderOutput(realTime: false))
            {
                switch event {
                case .turnCompleted(let result): results.append(result)
                case .error(let error): throw error
                default: break
                }
            }
            guard !results.isEmpty else { throw SDKException(.internalError, "No turn completed") }
            let timings = results.map(\.timings)
            let latency = timings.map(\.endOfSpeechToFirstAudioMs)
            let report = Report(
                turns: results.count,
                p50EndOfSpeechToFirstAudioMs: CLI.median(latency),
                p95EndOfSpeechToFirstAudioMs: CLI.percentile(latency, 0.95),
                maxEndOfSpeechToFirstAudioMs: latency.max() ?? 0,
                medianSttMs: CLI.median(timings.map(\.sttMs)),
                medianLlmFirstTokenMs: CLI.median(timings.map(\.llmFirstTokenMs)),
                medianLlmFirstSentenceMs: CLI.median(timings.map(\.llmFirstSentenceMs)),
                medianTtsFirstChunkMs: CLI.median(timings.map(\.ttsFirstChunkMs)),
                medianSilenceWaitMs: CLI.median(timings.map(\.silenceWaitMs)),
                perTurn: timings,
                transcripts: results.map(\.transcript),
                replies: results.map(\.responseText)
            )
            if output.json { return try CLI.printJSON(report) }
            print("voice agent benchmark — \(results.count) turns")
            print(
                "end of speech → first audio: p50 \(CLI.format(report.p50EndOfSpeechToFirstAudioMs, 0)) ms, p95 \(CLI.format(report.p95EndOfSpeechToFirstAudioMs, 0)) ms"
            )
            print(
                "medians: STT \(CLI.format(report.medianSttMs, 0)) ms, LLM first token \(CLI.format(report.medianLlmFirstTokenMs, 0)) ms, first sentence \(CLI.format(report.medianLlmFirstSentenceMs, 0)) ms, TTS first chunk \(CLI.format(report.medianTtsFirstChunkMs, 0)) ms; the VAD waited \(CLI.format(report.medianSilenceWaitMs, 0)) ms of silence before"
            )
        }
    }
}
