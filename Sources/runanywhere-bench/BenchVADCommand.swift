import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BenchCommand {
    /// Cost of voice activity detection per 32 ms chunk, through the public API.
    struct VAD: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "vad",
            abstract: "Time per 32 ms chunk of voice activity detection."
        )

        @OptionGroup var output: BenchOutputOptions
        @Option(help: "VAD model id, or 'energy' (default: \(CLI.Defaults.vad) when installed).") var model: String?
        @Option(help: "Seconds of audio to process.") var seconds: Double = 30

        struct Report: Encodable {
            var detector: String
            var chunks: Int
            var chunkMs: Double
            var meanMs: Double
            var medianMs: Double
            var p95Ms: Double
            var maxMs: Double
            var realTimeFactor: Double
        }

        func execute() async throws {
            try await CLI.start(output.global)
            let detector = model == "energy" ? nil : CLI.model(model, orDefault: CLI.Defaults.vad)
            if let detector { try await RunAnywhere.loadVADModel(detector) }
            // Speech-like input: the system voice reading, with pauses between sentences.
            var audio = PCMAudio(samples: [], sampleRate: 16_000)
            let speech = try await RunAnywhere.synthesize(
                "Voice activity detection has to be cheap. It runs on every chunk of audio, all the time.",
                options: TTSOptions(voice: "espeak-ng:en-us")
            ).audio.speechInput()
            while audio.duration < seconds {
                audio.append(speech)
                audio.append(.silence(duration: 1, sampleRate: 16_000))
            }
            let chunks = audio.chunks(frames: 512)
            try await RunAnywhere.resetVAD()
            for chunk in chunks.prefix(10) { _ = try await RunAnywhere.detectVoiceActivity(chunk) }  // warm-up
            try await RunAnywhere.resetVAD()
            var times: [Double] = []
            times.reserveCapacity(chunks.count)
            for chunk in chunks {
                let start = ContinuousClock.now
                _ = try await RunAnywhere.detectVoiceActivity(chunk)
                times.append(start.duration(to: .now).milliseconds)
            }
            let mean = times.reduce(0, +) / Double(times.count)
            let report = Report(
                detector: detector ?? "energy",
                chunks: times.count,
                chunkMs: 32,
                meanMs: mean,
                medianMs: CLI.median(times),
                p95Ms: CLI.percentile(times, 0.95),
                maxMs: times.max() ?? 0,
                realTimeFactor: mean / 32
            )
            if output.json { return try CLI.printJSON(report) }
            print("VAD benchmark — \(report.detector), \(times.count) chunks of 32 ms")
            print(
                "per chunk: mean \(CLI.format(mean, 3)) ms, median \(CLI.format(report.medianMs, 3)) ms, p95 \(CLI.format(report.p95Ms, 3)) ms"
            )
        }
    }
}
