import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `runanywhere transcribe FILE.wav`: speech to text.
struct TranscribeCommand: SDKCommand {
    static let configuration = CommandConfiguration(commandName: "transcribe", abstract: "Transcribe a WAV file.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "A WAV file (any rate, mono or stereo).") var file: String
    @Option(help: "STT model id (default: \(CLI.Defaults.stt)).") var model: String?
    @Option(help: "Spoken language (ISO 639-1), for multilingual models.") var language: String?
    @Option(help: "Engine threads.") var threads: Int?
    @Flag(help: "Stream the file in 0.5 s chunks and print partial results as they come.") var stream = false
    @Flag(help: "Label the segments with who spoke them (loads the speaker encoder and the VAD).") var diarize = false
    @Option(help: "With --diarize: how many people talk, if known.") var speakers: Int?
    @Flag(name: .long, help: "Print one JSON object.") var json = false

    struct Output: Encodable {
        var text: String
        var segments: [STTSegment]
        var language: String?
        var confidence: Float?
        var modelId: String
        var audioDuration: Double
        var processingTimeMs: Double
        var rtf: Double
        var executedOn: String
    }

    func execute() async throws {
        try await CLI.start(global)
        guard let id = CLI.model(model, orDefault: CLI.Defaults.stt) else {
            throw SDKException(
                .modelNotFound,
                "No STT model given and \(CLI.Defaults.stt) is not installed",
                recovery: "Run `make models` or pass --model"
            )
        }
        let audio = try WAVFile.read(contentsOf: URL(fileURLWithPath: file))
        try await RunAnywhere.loadSTTModel(id)
        if diarize || speakers != nil {
            guard !stream else { throw ValidationError("--diarize works on whole files, not with --stream") }
            _ = try await CLI.loadDiarization(model: nil, vadModel: nil)
        }
        let options = STTOptions(
            language: language,
            threads: threads,
            diarize: diarize || speakers != nil,
            speakerCount: speakers
        )
        var output: STTOutput?
        if stream {
            let chunks = AsyncStream<PCMAudio> { continuation in
                for chunk in audio.chunks(duration: 0.5) { continuation.yield(chunk) }
                continuation.finish()
            }
            for try await partial in RunAnywhere.transcribeStream(chunks, options: options) {
                if partial.isFinal {
                    output = partial.output
                } else if !json {
                    print(String(printf: "[%5.1f s] ", partial.audioDuration) + partial.text)
                }
            }
        } else {
            output = try await RunAnywhere.transcribe(audio, options: options)
        }
        guard let output else { throw SDKException(.internalError, "The transcription produced no result") }
        if json {
            return try CLI.printJSON(
                Output(
                    text: output.text,
                    segments: output.segments,
                    language: output.language,
                    confidence: output.confidence,
                    modelId: output.modelId,
                    audioDuration: output.audioDuration,
                    processingTimeMs: output.processingTimeMs,
                    rtf: output.realTimeFactor,
                    executedOn: output.executedOn.rawValue
                )
            )
        }
        if diarize || speakers != nil {
            // One line per turn: who, when, what.
            for turn in Self.turns(output.segments) {
                print(
                    String(printf: "[%6.2f – %6.2f] Speaker %ld: ", turn.start, turn.end, turn.speaker + 1) + turn.text
                )
            }
        } else {
            print(output.text)
        }
        if global.verbose {
            for segment in output.segments {
                print(String(printf: "  %6.2f–%6.2f  ", segment.start, segment.end) + segment.text)
            }
            print(
                String(
                    printf: "%.2f s of audio in %.0f ms (RTF %.3f)",
                    output.audioDuration,
                    output.processingTimeMs,
                    output.realTimeFactor
                )
            )
        }
    }

    /// Consecutive segments of one speaker joined into a line.
    static func turns(_ segments: [STTSegment]) -> [(speaker: Int, start: Double, end: Double, text: String)] {
        var turns: [(speaker: Int, start: Double, end: Double, text: String)] = []
        for segment in segments {
            let speaker = segment.speaker ?? 0
            let text = segment.text.trimmedSpaces()
            if let last = turns.last, last.speaker == speaker {
                turns[turns.count - 1].end = segment.end
                turns[turns.count - 1].text += " " + text
            } else {
                turns.append((speaker, segment.start, segment.end, text))
            }
        }
        return turns
    }
}
