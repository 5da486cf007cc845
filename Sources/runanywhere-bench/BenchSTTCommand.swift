import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine
import RunAnywhereWhisperWindow

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BenchCommand {
    /// SDK vs a plain C program on the same libwhisper, model, audio, threads and audio context.
    struct STT: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "stt",
            abstract: "Transcription time and real-time factor of a short utterance, SDK vs raw whisper.cpp.",
            discussion: """
                With --real: every clip of the real-speech set (real human recordings with their \
                transcripts, fetched by `scripts/bootstrap models`) through the SDK, with the word \
                error rate, processing time and real-time factor by clip duration, and the same clips \
                through plain whisper.cpp with its full 30 s window for comparison.
                """
        )

        static let defaultText = "Turn on the kitchen lights and set the heating to twenty degrees."

        @OptionGroup var output: BenchOutputOptions
        @Option(help: "STT model id.") var model = CLI.Defaults.stt
        @Option(help: "A WAV file to transcribe (default: the sentence below, spoken by the default voice).") var file:
            String?
        @Option(help: "Text spoken for the default utterance.") var text = defaultText
        @OptionGroup var baseline: BaselineOptions
        @Flag(help: "Transcribe the real-speech set instead of one utterance.") var real = false
        @Option(name: .customLong("set"), help: "The real-speech set's folder (default: $RUNANYWHERE_SPEECH_SET).")
        var realSet: String?
        @Option(help: "With --real: only the first N clips.") var limit: Int?
        @Flag(
            name: .customLong("full-window"),
            inversion: .prefixedNo,
            help: "With --real: also run plain whisper.cpp with the full 30 s window on every clip."
        )
        var fullWindow = true
        @Flag(name: .customLong("all-clips"), help: "With --real --json: include every clip's result.")
        var allClips = false

        struct Report: Encodable {
            var model: String
            var threads: Int
            var reps: Int
            var audioSeconds: Double
            var audioContext: Int
            var sdkMs: Double
            var rawMs: Double
            /// Raw time over SDK time: 1 means the SDK adds nothing; above 0.98 is the target.
            var speedRatio: Double
            var rtf: Double
            var rawRtf: Double
            var text: String
            var rawText: String
            var sdkSamplesMs: [Double]
            var rawSamplesMs: [Double]
        }

        struct RawSample: Decodable {
            var ms: Double
            var text: String
        }

        func validate() throws {
            guard baseline.reps >= 1 else { throw ValidationError("--reps must be at least 1") }
            guard baseline.threads >= 1 else { throw ValidationError("--threads must be at least 1") }
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        }

        func execute() async throws {
            if real { return try await executeReal() }
            try await CLI.start(output.global)
            let rawBinary = try CLI.siblingExecutable("raw-whisper-bench", override: baseline.rawBinary)
            let info = try RunAnywhere.model(model)
            guard let path = info.localPath else {
                throw SDKException(.modelFileNotFound, "Model '\(model)' has no local file")
            }
            let audio = try await utterance()
            let audioFile = FileManager.default.temporaryDirectory.appendingPathComponent(
                "runanywhere-bench-\(UUID().uuidString).f32"
            )
            try audio.float32Data.write(to: audioFile)
            defer { try? FileManager.default.removeItem(at: audioFile) }
            let audioContext = WhisperWindow.audioContext(forSeconds: audio.duration)

            try await RunAnywhere.loadSTTModel(model)
            let options = STTOptions(language: "en", threads: baseline.threads)
            var sdk: [Double] = []
            var rawSamples: [RawSample] = []
            var text = ""
            // Interleaved so that drift in the machine's speed falls on both sides alike.
            for _ in 0..<baseline.reps {
                let output = try CLI.runProcess(
                    rawBinary,
                    [
                        path.path, audioFile.path, String(baseline.threads), String(audioContext),
                        String(WhisperWindow.maxTokens(forSeconds: audio.duration)), "2",
                    ]
                )
                let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
                rawSamples += try lines.dropFirst().map {
                    try JSONDecoder().decode(RawSample.self, from: Data($0.utf8))
                }
                _ = try await RunAnywhere.transcribe(audio, options: options)
                let result = try await RunAnywhere.transcribe(audio, options: options)
                sdk.append(result.processingTimeMs)
                text = result.text
            }
            let sdkMs = CLI.median(sdk)
            let rawMs = CLI.median(rawSamples.map(\.ms))
            let report = Report(
                model: model,
                threads: baseline.threads,
                reps: baseline.reps,
                audioSeconds: audio.duration,
                audioContext: audioContext,
                sdkMs: sdkMs,
                rawMs: rawMs,
                speedRatio: rawMs / sdkMs,
                rtf: sdkMs / 1000 / audio.duration,
                rawRtf: rawMs / 1000 / audio.duration,
                text: text,
                rawText: rawSamples.last?.text.trimmedSpaces() ?? "",
                sdkSamplesMs: sdk,
                rawSamplesMs: rawSamples.map(\.ms)
            )
            if output.json { return try CLI.printJSON(report) }
            print(
                "whisper.cpp benchmark — \(model), \(CLI.format(audio.duration, 2)) s of audio, audio_ctx \(audioContext), \(baseline.threads) threads, median of \(baseline.reps)"
            )
            print("              SDK        raw      ratio")
            print("ms        \(CLI.pad(sdkMs))  \(CLI.pad(rawMs))  \(CLI.pad(report.speedRatio, 3))")
            print("RTF       \(CLI.pad(report.rtf, 3))  \(CLI.pad(report.rawRtf, 3))")
            print("text: \(text)")
        }

        /// The audio to transcribe, as 16 kHz mono.
        private func utterance() async throws -> PCMAudio {
            if let file { return try WAVFile.read(contentsOf: URL(fileURLWithPath: file)).speechInput() }
            let voice = CLI.model(nil, orDefault: CLI.Defaults.tts)
            return try await RunAnywhere.synthesize(text, options: TTSOptions(voice: voice)).audio.speechInput()
        }
    }
}
