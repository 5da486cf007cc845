import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `runanywhere speak TEXT`: text to speech, to a WAV file or the sound device.
struct SpeakCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "speak",
        abstract: "Speak text to a WAV file or the sound device."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The text to speak.") var text: String?
    @Option(name: .customLong("out"), help: "Write the audio to this WAV file instead of playing it.") var out: String?
    @Option(help: "Voice id: a voice model (default: \(CLI.Defaults.tts) when installed) or espeak-ng:<language>.")
    var voice: String?
    @Option(help: "Speaking rate (1 = normal).") var rate: Float = 1
    @Option(help: "Pitch (1 = the voice's own).") var pitch: Float = 1
    @Option(help: "Volume (1 = unchanged).") var volume: Float = 1
    @Option(help: "ALSA device for playback.") var device = "default"
    @Flag(name: .customLong("list-voices"), help: "List the available voices and exit.") var listVoices = false
    @Flag(name: .long, help: "Print one JSON object.") var json = false
    @Flag(
        name: .long,
        help:
            "The text is SSML: <speak>, <p>, <s>, <break time>, <prosody rate pitch volume>, <say-as interpret-as=\"characters\">."
    )
    var ssml = false

    struct Output: Encodable {
        var voice: String
        var duration: Double
        var rtf: Double
        var firstChunkMs: Double
        var totalMs: Double
        var chunks: Int
        var out: String?
        var words: [TTSWordTiming]
    }

    func execute() async throws {
        try await CLI.start(global)
        if listVoices {
            let voices = try await RunAnywhere.availableTTSVoices()
            if json { return try CLI.printJSON(voices) }
            for voice in voices { print("\(voice.id)\t\(voice.language)\t\(voice.name)") }
            return
        }
        guard let text else {
            throw SDKException(.emptyText, "Nothing to speak", recovery: "Pass the text as an argument")
        }
        let voiceId = voice ?? CLI.model(nil, orDefault: CLI.Defaults.tts)
        // A voice model loads first, so the timings below are synthesis only.
        if let voiceId, (try? RunAnywhere.model(voiceId))?.category == .speechSynthesis {
            try await RunAnywhere.loadTTSModel(voiceId)
        }
        let options = TTSOptions(voice: voiceId, rate: rate, pitch: pitch, volume: volume, ssml: ssml)
        let output: any AudioOutput =
            out.map { WAVFileAudioOutput(url: URL(fileURLWithPath: $0)) } ?? ALSAAudioOutput(device: device)
        let result = try await RunAnywhere.speak(text, options: options, output: output)
        let report = Output(
            voice: voiceId ?? "system",
            duration: result.duration,
            rtf: result.duration > 0 ? result.totalMs / 1000 / result.duration : 0,
            firstChunkMs: result.firstAudioMs,
            totalMs: result.totalMs,
            chunks: result.chunks,
            out: out,
            words: result.wordTimings
        )
        if json { return try CLI.printJSON(report) }
        print(
            "\(report.duration.fixed(decimals: 2)) s of speech (\(report.voice)), first audio after "
                + "\(report.firstChunkMs.fixed(decimals: 0)) ms, RTF \(report.rtf.fixed(decimals: 3))"
                + (out.map { " → \($0)" } ?? "")
        )
    }
}
