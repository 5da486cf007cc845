import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `runanywhere vad FILE.wav`: where the speech is.
struct VADCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "vad",
        abstract: "Find the speech segments in a WAV file."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "A WAV file (any rate, mono or stereo).") var file: String
    @Option(help: "VAD model id (default: \(CLI.Defaults.vad) when installed), or 'energy' for the energy detector.")
    var model: String?
    @Option(help: "Speech probability threshold (0–1).") var threshold: Float = 0.5
    @Option(name: .customLong("min-speech"), help: "Shortest speech, in seconds.") var minSpeech: Double = 0.25
    @Option(name: .customLong("min-silence"), help: "Silence that ends speech, in seconds.") var minSilence: Double =
        0.5
    @Flag(name: .long, help: "Print one JSON object.") var json = false

    struct Output: Encodable {
        struct Segment: Encodable {
            var start: Double
            var end: Double
        }
        var detector: String
        var audioDuration: Double
        var segments: [Segment]
        var processingTimeMs: Double
    }

    func execute() async throws {
        try await CLI.start(global)
        let audio = try WAVFile.read(contentsOf: URL(fileURLWithPath: file))
        let detector = model == "energy" ? nil : CLI.model(model, orDefault: CLI.Defaults.vad)
        if let detector { try await RunAnywhere.loadVADModel(detector) }
        try await RunAnywhere.configureVAD(
            VADConfiguration(
                threshold: threshold,
                minSpeechDuration: minSpeech,
                minSilenceDuration: minSilence
            )
        )
        let start = ContinuousClock.now
        let segments = try await RunAnywhere.detectSpeechSegments(in: audio)
        let ms = start.duration(to: .now).milliseconds
        let output = Output(
            detector: detector ?? "energy",
            audioDuration: audio.duration,
            segments: segments.map {
                .init(start: ($0.start * 1000).rounded() / 1000, end: ($0.end * 1000).rounded() / 1000)
            },
            processingTimeMs: ms
        )
        if json { return try CLI.printJSON(output) }
        for segment in output.segments { print(String(printf: "%7.3f  %7.3f", segment.start, segment.end)) }
        if output.segments.isEmpty { print("no speech found") }
    }
}
