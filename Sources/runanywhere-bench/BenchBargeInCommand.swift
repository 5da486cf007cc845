import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine
import RunAnywhereTesting

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BenchCommand {
    /// How soon the voice agent stops talking when the user speaks over it, with its targets.
    struct BargeIn: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "barge-in",
            abstract: "Barge-in latency: the user speaking over the agent to its playback stopping.",
            discussion: """
                Each repetition asks the agent for a long story in a simulated room (RunAnywhereTesting's \
                EchoingRoom: the microphone and the loudspeaker run in real time), and once the agent has been \
                speaking for --after seconds, in the middle of a sentence, the user says "Stop. What time is \
                it?" over it. The user's voice is the agent's own synthesized voice. onset_to_stop_ms runs from \
                the interruption's acoustic onset (\(onsetMethod)) to the loudspeaker being stopped; \
                vad_start_to_stop_ms from the start of the interruption as the agent's VAD placed it (it acts \
                once the voice has lasted bargeInSpeechDuration) to the stop; onset_to_vad_start_ms between the two. A repetition in which the agent never spoke long enough \
                to be interrupted, or never stopped, is missing, never 0 ms, and fails the targets: p95 \
                onset to stop ≤ \(Int(onsetTargetMs)) ms, p95 VAD start to stop ≤ \(Int(vadStartTargetMs)) ms.
                """
        )

        static let onsetTargetMs = 300.0
        static let vadStartTargetMs = 150.0

        static var onsetMethod: String {
            let frameMs = Int((VoiceBenchRecordings.acousticFrameDuration * 1000).rounded())
            let threshold = Int(VoiceBenchRecordings.acousticThresholdDBFS.rounded())
            return "the start of the first \(frameMs) ms frame at or above \(threshold) dBFS in the interruption's "
                + "recording, independent of the agent's VAD"
        }

        @OptionGroup var output: BenchOutputOptions
        @OptionGroup var models: VoiceModelOptions
        @Option(help: "Interruptions to measure.") var reps = 7
        @Option(help: "Seconds the agent has been speaking when the user cuts in.") var after = 1.5
        @Option(name: .customLong("echo-gain"), help: "The loudspeaker's echo in the microphone (0: headphones).")
        var echoGain: Float = 0

        /// One interruption.
        struct Sample: Encodable {
            var onsetToStopMs: Double?
            var vadStartToStopMs: Double?
            var onsetToVadStartMs: Double?
            /// Whether the playback had stopped when the agent reported the interruption.
            var stoppedBeforeReport: Bool
        }

        struct Report: Encodable {
            var reps: Int
            var afterPlaybackSeconds: Double
            var echoGain: Float
            var onsetMethod: String
            var onsetToStopMs: Voice.Latency
            var vadStartToStopMs: Voice.Latency
            var onsetToVadStartMs: Voice.Latency
            var stoppedBeforeReport: Int
            var targets: [BenchTarget]
            var samples: [Sample]
        }

        func validate() throws {
            guard reps >= 1 else { throw ValidationError("--reps must be at least 1") }
            guard after > 0 else { throw ValidationError("--after must be positive") }
            guard echoGain >= 0, echoGain < 1 else { throw ValidationError("--echo-gain must be in [0, 1)") }
        }

        func execute() async throws {
            try await CLI.start(output.global)
            var configuration = models.configuration()
            configuration.bargeIn = true
            configuration.systemPrompt = "You are a storyteller. Always answer with a long story of several sentences."
            let voice = configuration.ttsOptions
            try await RunAnywhere.initializeVoiceAgent(configuration)
            // The microphone runs on for 10 s after the question: time for the answer to start.
            var question = PCMAudio.silence(duration: 0.5, sampleRate: 16_000)
            question.append(
                try await RunAnywhere.synthesize("Tell me a long story about a dragon.", options: voice).audio
            )
            question.append(.silence(duration: 10, sampleRate: 16_000))
            let interruption = try await RunAnywhere.synthesize("Stop. What time is it?", options: voice).audio
                .speechInput()
            guard let onset = VoiceBenchRecordings.acousticStart(interruption) else {
                throw SDKException(.internalError, "The interruption's recording is silent")
            }
            var samples: [Sample] = []
            for rep in 0..<reps {
                // A fresh conversation each time, so every repetition asks the same of the agent.
                if rep > 0 { try await RunAnywhere.initializeVoiceAgent(configuration) }
                samples.append(
                    try await Self.interrupt(
                        question,
                        with: interruption,
                        onset: onset,
                        after: after,
                        echoGain: echoGain
                    )
                )
                if !output.json {
                    let sample = samples[rep]
                    CLI.printError(
                        "rep \(rep + 1)/\(reps): onset → stop \(Self.figure(sample.onsetToStopMs)), "
                            + "VAD start → stop \(Self.figure(sample.vadStartToStopMs))"
                    )
                }
            }
            let onsetToStop = Voice.Latency(samples.map(\.onsetToStopMs))
            let vadStartToStop = Voice.Latency(samples.map(\.vadStartToStopMs))
            let report = Report(
                reps: reps,
                afterPlaybackSeconds: after,
                echoGain: echoGain,
                onsetMethod: Self.onsetMethod,
                onsetToStopMs: onsetToStop,
                vadStartToStopMs: vadStartToStop,
                onsetToVadStartMs: Voice.Latency(samples.map(\.onsetToVadStartMs)),
                stoppedBeforeReport: samples.count(where: \.stoppedBeforeReport),
                targets: [
                    BenchTarget("onset to stop, p95 ms", onsetToStop.p95Ms, limit: Self.onsetTargetMs),
                    BenchTarget("VAD start to stop, p95 ms", vadStartToStop.p95Ms, limit: Self.vadStartTargetMs),
                ],
                samples: samples
            )
            if output.json { return try CLI.printJSON(report) }
            print("barge-in benchmark — \(reps) interruptions, echo gain \(echoGain)")
            print("interruption onset → playback stopped: \(onsetToStop.summary("interruptions"))")
            print("  onset: \(Self.onsetMethod)")
            print(
                "interruption's start by the agent's VAD → playback stopped: \(vadStartToStop.summary("interruptions"))"
            )
            print("onset → start by the agent's VAD: \(report.onsetToVadStartMs.summary("interruptions"))")
            print("playback stopped before the interruption was reported: \(report.stoppedBeforeReport) of \(reps)")
            for target in report.targets { print(target.line) }
        }

        /// Runs one conversation in which the user speaks over the reply, and measures the stop.
        private static func interrupt(
            _ question: PCMAudio,
            with interruption: PCMAudio,
            onset: TimeInterval,
            after: TimeInterval,
            echoGain: Float
        ) async throws -> Sample {
            let room = EchoingRoom(
                recording: question,
                echoGain: echoGain,
                interruption: interruption,
                afterPlayback: after
            )
            var stoppedBeforeReport = false
            var vadStart: TimeInterval?
            for await event in RunAnywhere.streamVoiceAgent(input: room.microphone, output: room.loudspeaker) {
                if case .interrupted(let time) = event, vadStart == nil, let said = room.interruptionStart {
                    vadStart = time
                    stoppedBeforeReport = room.stops.contains { $0 >= said }
                }
            }
            guard let said = room.interruptionStart else {
                return Sample(stoppedBeforeReport: false)
            }
            let spoken = said + onset
            let stopped = room.stops.first { $0 >= said }
            return Sample(
                onsetToStopMs: stopped.map { ($0 - spoken) * 1000 },
                vadStartToStopMs: stopped.flatMap { stop in vadStart.map { (stop - $0) * 1000 } },
                onsetToVadStartMs: vadStart.map { ($0 - spoken) * 1000 },
                stoppedBeforeReport: stoppedBeforeReport
            )
        }

        private static func figure(_ value: Double?) -> String {
            value.map { "\(CLI.format($0, 0)) ms" } ?? "missing"
        }
    }
}
