// A host with the RunAnywhere core and no engine backend: it loads a speech-recognition plugin,
// transcribes WAV files through it and prints one JSON object, for the plugin tests to compare
// with the linked backend.
//
//   runanywhere-plugin-host PLUGIN MODEL_FILE FRAMEWORK WAV…
import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the host prints.
struct Report: Encodable {
    struct Transcript: Encodable {
        var file: String
        var text: String
        var segments: [STTSegment]
    }

    var plugin: PluginInfo
    var registered: [String]
    var transcripts: [Transcript]
}

let arguments = CommandLine.arguments
guard arguments.count >= 5 else {
    print("usage: runanywhere-plugin-host PLUGIN MODEL_FILE FRAMEWORK WAV…")
    exit(2)
}
do {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("plugin-host-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: home) }
    let sdk = try RunAnywhereSDK(home: home)
    let plugin = try sdk.pluginLoader.load(path: arguments[1])
    let file = URL(fileURLWithPath: arguments[2])
    try sdk.registerModel(
        ModelInfo(
            id: "plugin-stt",
            name: file.lastPathComponent,
            category: .speechRecognition,
            format: .guess(fromFileName: file.lastPathComponent),
            framework: InferenceFramework(arguments[3]),
            localPath: file
        )
    )
    try await sdk.loadSTTModel("plugin-stt")
    var transcripts: [Report.Transcript] = []
    for path in arguments.dropFirst(4) {
        let output = try await sdk.transcribe(audio: try Data(contentsOf: URL(fileURLWithPath: path)))
        transcripts.append(Report.Transcript(file: path, text: output.text, segments: output.segments))
    }
    let report = Report(plugin: plugin, registered: sdk.pluginLoader.registeredNames(), transcripts: transcripts)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    print(String(decoding: try encoder.encode(report), as: UTF8.self))
    await sdk.shutdown()
} catch {
    print("error: \(error)")
    exit(1)
}
