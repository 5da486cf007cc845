import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BenchCommand {
    /// Diarization error and speed on conversations assembled from real recordings of
    /// different people.
    struct Diarize: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "diarize",
            abstract: "Diarization error rate (DER) and real-time factor on conversations of real recordings."
        )

        @OptionGroup var output: BenchOutputOptions
        @Option(
            name: .customLong("threshold"),
            help: "Similarity thresholds to measure when estimating the number of speakers (repeat)."
        )
        var thresholds: [Float] = [DiarizationOptions.defaultSimilarityThreshold]
        @Option(help: "Collar around each true boundary that is not scored, in seconds.") var collar = 0.25
        @Option(name: .customLong("real-set"), help: "The real-speech set (default: $RUNANYWHERE_SPEECH_SET).")
        var realSet: String?
        @Option(help: "Speaker encoder model id (default: \(CLI.Defaults.diarization)).") var model: String?

        /// One conversation diarized one way.
        struct Run: Encodable {
            var conversation: String
            var speakers: [String]
            var seconds: Double
            var mode: String
            var speakersFound: Int
            var der: Double
            var missed: Double
            var falseAlarm: Double
            var confusion: Double
            var processingMs: Double
        }

        /// All conversations diarized one way.
        struct Summary: Encodable {
            var mode: String
            var der: Double
            var speakerCountCorrect: Int
            var conversations: Int
            var realTimeFactor: Double
        }

        struct Report: Encodable {
            var modelId: String
            var collar: Double
            var audioSeconds: Double
            var summaries: [Summary]
            var runs: [Run]
        }

        func execute() async throws {
            try await CLI.start(output.global)
            let corpus = try realSet.map { try SpeechCorpus(folder: URL(fileURLWithPath: $0)) } ?? .bootstrapped()
            let modelId = try await CLI.loadDiarization(model: model, vadModel: nil)
            let conversations = try AssembledConversation.standardSet(from: corpus)
            var modes: [(name: String, options: (AssembledConversation) -> DiarizationOptions)] = [
                ("known count", { DiarizationOptions(speakerCount: $0.speakers.count) })
            ]
            for threshold in thresholds {
                modes.append(
                    (
                        String(printf: "estimated, threshold %.2f", threshold),
                        { _ in DiarizationOptions(similarityThreshold: threshold) }
                    )
                )
            }
            var runs: [Run] = []
            var summaries: [Summary] = []
            for mode in modes {
                var scores: [DiarizationErrorRate] = []
                var correct = 0
                var processing = 0.0
                var audio = 0.0
                for (name, conversation) in conversations {
                    let start = ContinuousClock.now
                    let segments = try await RunAnywhere.diarize(
                        conversation.audio,
                        options: mode.options(conversation)
                    )
                    let milliseconds = start.duration(to: .now).milliseconds
                    let score = DiarizationErrorRate(
                        reference: conversation.truth,
                        hypothesis: segments,
                        collar: collar
                    )
                    let found = Set(segments.map(\.speaker)).count
                    if found == conversation.speakers.count { correct += 1 }
                    scores.append(score)
                    processing += milliseconds / 1000
                    audio += conversation.audio.duration
                    runs.append(
                        Run(
                            conversation: name,
                            speakers: conversation.speakers,
                            seconds: conversation.audio.duration,
                            mode: mode.name,
                            speakersFound: found,
                            der: score.rate,
                            missed: score.missed,
                            falseAlarm: score.falseAlarm,
                            confusion: score.confusion,
                            processingMs: milliseconds
                        )
                    )
                    if !output.json {
                        let line = String(
                            printf: "speakers %ld/%ld  DER %5.1f%%  %6.0f ms",
                            found,
                            conversation.speakers.count,
                            100 * score.rate,
                            milliseconds
                        )
                        print("\(name.padded(to: 28)) \(mode.name): \(line)")
                    }
                }
                let total = DiarizationErrorRate(combining: scores)
                summaries.append(
                    Summary(
                        mode: mode.name,
                        der: total.rate,
                        speakerCountCorrect: correct,
                        conversations: conversations.count,
                        realTimeFactor: audio > 0 ? processing / audio : 0
                    )
                )
            }
            let report = Report(
                modelId: modelId,
                collar: collar,
                audioSeconds: conversations.reduce(0) { $0 + $1.conversation.audio.duration },
                summaries: summaries,
                runs: runs
            )
            if output.json { return try CLI.printJSON(report) }
            for summary in summaries {
                let line = String(
                    printf: "DER %5.1f%%  speaker count right in %ld of %ld  RTF %.3f",
                    100 * summary.der,
                    summary.speakerCountCorrect,
                    summary.conversations,
                    summary.realTimeFactor
                )
                print("\(summary.mode): \(line)")
            }
        }
    }
}
