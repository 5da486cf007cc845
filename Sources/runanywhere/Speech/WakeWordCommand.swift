import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `runanywhere wakeword FILE.wav --phrase "hey computer"`: where the wake phrases are said.
struct WakeWordCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "wakeword",
        abstract: "Find where wake phrases are said in a WAV file."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "A WAV file (any rate, mono or stereo).") var file: String
    @Option(name: .customLong("phrase"), help: "A wake phrase (repeat for several).") var phrases: [String] = [
        "hey computer"
    ]
    @Option(help: "From 0 (fewer false accepts) to 1 (fewer misses).") var sensitivity: Float = 0.5
    @Option(
        help: "pocketsphinx (keyword spotting), or transcript (the speech model reads a sliding window; loads --model)."
    )
    var engine: WakeWordEngine = .pocketsphinx
    @Option(help: "Speech model for the transcript engine (default: \(CLI.Defaults.stt)).") var model: String?
    @Flag(name: .long, help: "Print one JSON object.") var json = false

    struct Output: Encodable {
        var engine: String
        var phrases: [String]
        var sensitivity: Float
        var audioDuration: Double
        var detections: [WakeWordDetection]
        var processingTimeMs: Double
    }

    func execute() async throws {
        try await CLI.start(global, keywordSpotter: engine == .pocketsphinx)
        let audio = try WAVFile.read(contentsOf: URL(fileURLWithPath: file))
        if engine == .transcript {
            guard let stt = CLI.model(model, orDefault: CLI.Defaults.stt) else {
                throw SDKException(.modelNotFound, "No speech model for the transcript engine: pass --model")
            }
            try await RunAnywhere.loadSTTModel(stt)
        }
        let configuration = WakeWordConfiguration(phrases: phrases, sensitivity: sensitivity)
        let start = ContinuousClock.now
        let detections = try await RunAnywhere.detectWakeWords(in: audio, configuration: configuration)
        let output = Output(
            engine: await RunAnywhere.wakeWordEngine ?? engine.rawValue,
            phrases: phrases,
            sensitivity: sensitivity,
            audioDuration: audio.duration,
            detections: detections,
            processingTimeMs: start.duration(to: .now).milliseconds
        )
        if json { return try CLI.printJSON(output) }
        for detection in detections { print("\(String(printf: "%7.2f", detection.time))  \(detection.phrase)") }
        if detections.isEmpty { print("no wake phrase heard") }
    }
}
