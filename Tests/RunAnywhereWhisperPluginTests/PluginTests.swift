import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

/// The plugin host (core only, no engine backend) and the whisper plugin, both made by
/// `swift build` next to the CLI.
let pluginHostBinary = cliBinary.deletingLastPathComponent().appendingPathComponent("runanywhere-plugin-host")
let whisperPlugin = cliBinary.deletingLastPathComponent().appendingPathComponent("libRunAnywhereWhisperPlugin.so")

@Suite("Backends loaded at run time across the C ABI", .serialized, .wholeMachine, .tags(.realEngine))
struct PluginTests {
    /// One clip of each speaker of the real-speech set, up to eight.
    static func clips() throws -> [SpeechCorpus.Clip] {
        var seen: Set<String> = []
        return try SpeechCorpus.bootstrapped().clips.filter { seen.insert($0.speaker).inserted }.prefix(8).map {
            $0
        }
    }

    @Test(
        "A host built without whisper.cpp loads the whisper plugin and transcribes real recordings exactly as the linked backend does"
    )
    func whisperPluginTranscribes() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: pluginHostBinary.path), "build first")
        try #require(FileManager.default.fileExists(atPath: whisperPlugin.path), "build first")
        // Built without the backend: none of its types is in the host.
        let host = try Data(contentsOf: pluginHostBinary)
        #expect(host.range(of: Data("WhisperCPPSTTService".utf8)) == nil)
        let clips = try Self.clips()
        try #require(clips.count >= 5)
        let model = try DefaultModels.model(DefaultModels.sttId)
        let modelFile = try #require(model.localPath)

        let process = Process()
        process.executableURL = pluginHostBinary
        process.arguments = [whisperPlugin.path, modelFile.path, model.framework.rawValue] + clips.map(\.file.path)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(String(decoding: output, as: UTF8.self))")
        let report = try json(Substring(String(decoding: output, as: UTF8.self)))
        #expect(report["registered"] as? [String] == ["whispercpp-plugin"], "the host links no backend")
        let plugin = try #require(report["plugin"] as? [String: Any])
        #expect(plugin["apiVersion"] as? Int == 1)
        #expect(plugin["capabilities"] as? [String] == ["stt"])
        #expect(plugin["frameworks"] as? [String] == ["whispercpp"])
        let transcripts = try #require(report["transcripts"] as? [[String: Any]])
        try #require(transcripts.count == clips.count)

        try await withSDK(models: [DefaultModels.sttId]) { sdk in
            try await sdk.loadSTTModel(DefaultModels.sttId)
            var results: [WordErrorRate] = []
            for (clip, transcript) in zip(clips, transcripts) {
                let linked = try await sdk.transcribe(try WAVFile.read(contentsOf: clip.file))
                let text = try #require(transcript["text"] as? String)
                print("plugin: \(clip.id): \"\(text)\" (linked: \"\(linked.text)\", said: \"\(clip.transcript)\")")
                #expect(text == linked.text, "the plugin and the linked backend disagree on \(clip.id)")
                let segments = try #require(transcript["segments"] as? [[String: Any]])
                #expect(segments.compactMap { $0["text"] as? String } == linked.segments.map(\.text))
                #expect(segments.compactMap { $0["end"] as? Double } == linked.segments.map(\.end))
                results.append(WordErrorRate(reference: clip.transcript, hypothesis: text))
            }
            let wer = WordErrorRate(combining: results)
            print("plugin: WER \(wer.rate) over \(clips.count) real recordings")
            #expect(wer.rate <= 0.2)
        }
    }

    @Test(
        "The CLI installs the whisper plugin beside its linked backends, refuses it twice and names bad files and names",
        .tags(.cli)
    )
    func cliPlugins() throws {
        try #require(FileManager.default.fileExists(atPath: whisperPlugin.path), "build first")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ra-cli-plugins-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: home) }
        let list = try cli(["plugins", "list", "--json", "--home", home.path])
        #expect(list.status == 0, "\(list.err)")
        let report = try json(Substring(list.out))
        #expect(report["api_version"] as? Int == 1)
        #expect((report["registered"] as? [String])?.contains("whispercpp") == true, "\(list.out)")
        #expect((report["loaded"] as? [Any])?.isEmpty == true, "the CLI links its backends: \(list.out)")

        let load = try cli(["plugins", "load", whisperPlugin.path, "--json", "--home", home.path])
        #expect(load.status == 0, "\(load.err)")
        let installed = home.appendingPathComponent("plugins/libRunAnywhereWhisperPlugin.so")
        #expect(FileManager.default.fileExists(atPath: installed.path))
        let loaded = try #require(try json(Substring(load.out))["loaded"] as? [[String: Any]])
        #expect(loaded.compactMap { $0["name"] as? String } == ["whispercpp-plugin"], "\(load.out)")

        let twice = try cli(["plugins", "load", whisperPlugin.path, "--home", home.path])
        #expect(twice.status == 1)
        #expect(twice.err.contains("[plugin_already_loaded]"), "\(twice.err)")
        let notes = home.appendingPathComponent("notes.so")
        try "text".write(to: notes, atomically: true, encoding: .utf8)
        let text = try cli(["plugins", "load", notes.path, "--home", home.path])
        #expect(text.status == 1)
        #expect(text.err.contains("[invalid_plugin]"), "\(text.err)")
        let unknown = try cli(["plugins", "unload", "nothing", "--home", home.path])
        #expect(unknown.status == 1)
        #expect(unknown.err.contains("[plugin_not_found]"), "\(unknown.err)")

        // A broken file in the plugins folder is reported, and never stops a command.
        try FileManager.default.copyItem(at: notes, to: home.appendingPathComponent("plugins/libbroken.so"))
        let doctor = try cli(["doctor", "--json", "--home", home.path])
        #expect(doctor.status == 0, "\(doctor.err)")
        let plugins = try #require(try json(Substring(doctor.out))["plugins"] as? [String: Any])
        let failed = try #require(plugins["failed"] as? [String: String])
        #expect(failed.keys.contains { $0.hasSuffix("libbroken.so") }, "\(plugins)")

        let unload = try cli(["plugins", "unload", "whispercpp-plugin", "--home", home.path])
        #expect(unload.status == 0, "\(unload.err)")
        #expect(!FileManager.default.fileExists(atPath: installed.path))
    }
}
