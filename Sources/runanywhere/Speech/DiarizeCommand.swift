import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `runanywhere diarize FILE.wav`: who spoke when.
struct DiarizeCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "diarize",
        abstract: "Find who spoke when in a WAV file."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "A WAV file (any rate, mono or stereo).") var file: String
    @Option(help: "How many people talk, if known; otherwise estimated.") var speakers: Int?
    @Option(help: "When estimating: the voice similarity (cosine) above which two groups are one speaker.")
    var threshold: Float = DiarizationOptions.defaultSimilarityThreshold
    @Option(help: "Speaker encoder model id (default: \(CLI.Defaults.diarization)).") var model: String?
    @Option(help: "VAD model id that finds the speech (default: \(CLI.Defaults.vad); the energy detector if absent).")
    var vadModel: String?
    @Flag(name: .long, help: "Print one JSON object.") var json = false

    struct Output: Encodable {
        var modelId: String
        var speakers: Int
        var segments: [SpeakerSegment]
        var audioDuration: Double
        var processingTimeMs: Double
        var rtf: Double
    }

    func execute() async throws {
        try await CLI.start(global)
        let audio = try WAVFile.read(contentsOf: URL(fileURLWithPath: file))
        let id = try await CLI.loadDiarization(model: model, vadModel: vadModel)
        let options = DiarizationOptions(speakerCount: speakers, similarityThreshold: threshold)
        let start = ContinuousClock.now
        let segments = try await RunAnywhere.diarize(audio, options: options)
        let milliseconds = start.duration(to: .now).milliseconds
        let output = Output(
            modelId: id,
            speakers: Set(segments.map(\.speaker)).count,
            segments: segments,
            audioDuration: audio.duration,
            processingTimeMs: milliseconds,
            rtf: audio.duration > 0 ? milliseconds / 1000 / audio.duration : 0
        )
        if json { return try CLI.printJSON(output) }
        for segment in segments {
            print(String(printf: "%7.2f – %7.2f  ", segment.start, segment.end) + segment.label)
        }
        if global.verbose {
            print(
                String(
                    printf: "%ld speakers in %.2f s of audio, %.0f ms (RTF %.3f)",
                    output.speakers,
                    output.audioDuration,
                    output.processingTimeMs,
                    output.rtf
                )
            )
        }
    }
}
