import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BenchCommand {
    /// Real-time factor and time to first audio of speech synthesis.
    struct TTS: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "tts",
            abstract: "Synthesis real-time factor and time to the first audio chunk."
        )

        static let defaultText = """
            Good morning. The weather today is sunny, with a high of twenty two degrees. \
            Your first meeting starts at half past nine, and the train leaves in forty minutes.
            """

        @OptionGroup var output: BenchOutputOptions
        @Option(help: "Voice id (default: \(CLI.Defaults.tts) when installed, else the system voice).") var voice:
            String?
        @Option(help: "Text to speak.") var text = defaultText
        @Option(help: "Measured repetitions (after one warm-up).") var reps = 5

        struct Report: Encodable {
            var voice: String
            var reps: Int
            var characters: Int
            var audioSeconds: Double
            var rtf: Double
            var firstChunkMs: Double
            var totalMs: Double
            var chunks: Int
            var rtfSamples: [Double]
            var firstChunkSamplesMs: [Double]
        }

        func execute() async throws {
            try await CLI.start(output.global)
            let voiceId = voice ?? CLI.model(nil, orDefault: CLI.Defaults.tts)
            if let voiceId, (try? RunAnywhere.model(voiceId))?.category == .speechSynthesis {
                try await RunAnywhere.loadTTSModel(voiceId)
            }
            let options = TTSOptions(voice: voiceId)
            var firstChunk: [Double] = []
            var total: [Double] = []
            var rtf: [Double] = []
            var seconds = 0.0
            var chunks = 0
            for rep in 0...reps {
                let start = ContinuousClock.now
                var first: Double?
                seconds = 0
                chunks = 0
                for try await piece in RunAnywhere.synthesizeSentences(text, options: options) {
                    if first == nil { first = start.duration(to: .now).milliseconds }
                    seconds += piece.duration
                    chunks += 1
                }
                let ms = start.duration(to: .now).milliseconds
                guard rep > 0 else { continue }  // warm-up
                firstChunk.append(first ?? ms)
                total.append(ms)
                rtf.append(ms / 1000 / seconds)
            }
            let report = Report(
                voice: voiceId ?? "system",
                reps: reps,
                characters: text.count,
                audioSeconds: seconds,
                rtf: CLI.median(rtf),
                firstChunkMs: CLI.median(firstChunk),
                totalMs: CLI.median(total),
                chunks: chunks,
                rtfSamples: rtf,
                firstChunkSamplesMs: firstChunk
            )
            if output.json { return try CLI.printJSON(report) }
            print(
                "TTS benchmark — \(report.voice), \(text.count) characters → \(CLI.format(seconds, 2)) s of audio in \(chunks) chunks, median of \(reps)"
            )
            print(
                "RTF \(CLI.format(report.rtf, 3)), first chunk after \(CLI.format(report.firstChunkMs)) ms, all after \(CLI.format(report.totalMs)) ms"
            )
        }
    }
}
