import Foundation
import Testing

@testable import RunAnywhere

/// Plugins written in C against `rac_plugin.h`, compiled here with the system's `cc`.
///
/// The test plugin serves the framework `c-test`: its model is any readable file, and it
/// "transcribes" by measuring the audio it was given (sample count and peak), so a test sees
/// that the samples, the options and the result crossed the boundary intact.
enum CPlugin {
    static let header = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/CRunAnywherePlugin")

    static let source = """
        #include "rac_plugin.h"
        #include <stdio.h>
        #include <string.h>

        static int model_handle;

        static void load(const char *path, const char *id, void *context, rac_loaded_fn done) {
            FILE *file = fopen(path, "rb");
            if (file == NULL) {
                done(context, RAC_ERROR_MODEL_LOAD_FAILED, NULL, "cannot open the model file");
                return;
            }
            fclose(file);
            done(context, RAC_SUCCESS, &model_handle, NULL);
        }

        static void transcribe(void *model, const float *samples, size_t count, const char *options,
                               void *context, rac_done_fn done) {
            float peak = 0;
            for (size_t i = 0; i < count; i++) {
                float magnitude = samples[i] < 0 ? -samples[i] : samples[i];
                if (magnitude > peak) peak = magnitude;
            }
            if (strstr(options, "\\"language\\":\\"xx\\"") != NULL) {
                done(context, RAC_ERROR_INVALID_INPUT, "no language xx");
                return;
            }
            char json[512];
            snprintf(json, sizeof json,
                     "{\\"text\\":\\"%zu samples, peak %.3f\\",\\"language\\":\\"en\\",\\"confidence\\":0.5,"
                     "\\"segments\\":[{\\"text\\":\\"%zu samples\\",\\"start\\":0,\\"end\\":%.3f,\\"confidence\\":null}]}",
                     count, peak, count, count / 16000.0);
            done(context, RAC_SUCCESS, json);
        }

        static void unload(void *model) {}

        static const char *const frameworks[] = {"c-test", NULL};
        static const rac_stt_ops stt = {load, transcribe, NULL, unload};
        static const rac_plugin plugin = {API_VERSION, NAME, "C test engine 1.0", frameworks, 100, &stt, {0}};

        const rac_plugin *rac_plugin_entry(void) { return &plugin; }
        """

    /// Compiles `code` into `folder/lib<file>.so` with the given macros.
    static func compile(_ code: String = source, file: String, in folder: URL, defines: [String] = []) throws -> URL {
        let sourceFile = folder.appendingPathComponent("\(file).c")
        let library = folder.appendingPathComponent("lib\(file).so")
        try code.write(to: sourceFile, atomically: true, encoding: .utf8)
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        cc.arguments =
            ["cc", "-shared", "-fPIC", "-I", header.path] + defines.map { "-D\($0)" } + [
                "-o", library.path, sourceFile.path,
            ]
        try cc.run()
        cc.waitUntilExit()
        try #require(cc.terminationStatus == 0, "cc failed on \(sourceFile.path)")
        return library
    }

    /// The test plugin named `name` built for ABI `version`.
    static func plugin(_ name: String, version: String = "RAC_PLUGIN_API_VERSION", in folder: URL) throws -> URL {
        try compile(file: name, in: folder, defines: ["NAME=\"\(name)\"", "API_VERSION=\(version)"])
    }
}

@Suite("Plugins across the C ABI")
struct PluginLoaderTests {
    /// An instance with no backend, its home (with a `made/` folder for libraries) and a model
    /// of the test plugin's framework registered as `c-model`.
    func withHost(_ body: (RunAnywhereSDK, URL) async throws -> Void) async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-plugins-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let made = home.appendingPathComponent("made")
        try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
        let modelFile = made.appendingPathComponent("model.bin")
        try Data("a model".utf8).write(to: modelFile)
        let sdk = try RunAnywhereSDK(home: home)
        try sdk.registerModel(
            ModelInfo(
                id: "c-model",
                name: "C model",
                category: .speechRecognition,
                format: .bin,
                framework: InferenceFramework("c-test"),
                localPath: modelFile
            )
        )
        do {
            try await body(sdk, made)
        } catch {
            await sdk.shutdown()
            throw error
        }
        await sdk.shutdown()
    }

    /// A second of a 440 Hz tone at half scale.
    static let tone = PCMAudio(
        samples: (0..<16_000).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 16_000)) },
        sampleRate: 16_000
    )

    @Test("A plugin written in C loads, describes itself, and transcribes through its table")
    func cPluginTranscribes() async throws {
        try await withHost { sdk, made in
            let info = try sdk.pluginLoader.load(path: try CPlugin.plugin("c-stt", in: made).path)
            #expect(info.name == "c-stt")
            #expect(info.apiVersion == sdk.pluginLoader.apiVersion)
            #expect(info.engine == "C test engine 1.0")
            #expect(info.frameworks == ["c-test"])
            #expect(info.capabilities == ["stt"])
            #expect(sdk.pluginLoader.registeredNames() == ["c-stt"])
            #expect(sdk.pluginLoader.listLoaded() == [info])

            try await sdk.loadSTTModel("c-model")
            let output = try await sdk.transcribe(Self.tone)
            #expect(output.text == "16000 samples, peak 0.500")
            #expect(output.language == "en")
            #expect(output.segments.map(\.text) == ["16000 samples"])
            #expect(output.segments.first?.end == 1.0)
            // Options cross as JSON: the plugin refuses this language, typed.
            let refused = await #expect(throws: SDKException.self) {
                try await sdk.transcribe(Self.tone, options: STTOptions(language: "xx"))
            }
            #expect(refused?.code == .invalidInput)
            #expect(refused?.message.contains("no language xx") == true)
        }
    }

    @Test("A file that is not a plugin, a library without the entry point and another ABI version are refused, typed")
    func badFilesAreRefused() async throws {
        try await withHost { sdk, made in
            let text = made.appendingPathComponent("libtext.so")
            try Data("not a library".utf8).write(to: text)
            let plain = try CPlugin.compile("int answer = 42;", file: "plain", in: made)
            let future = try CPlugin.plugin("future", version: "99u", in: made)
            let cases: [(URL, SDKException.Code, String)] = [
                (text, .invalidPlugin, "cannot be opened"),
                (plain, .invalidPlugin, "rac_plugin_entry"),
                (future, .pluginIncompatible, "ABI 99"),
                (made.appendingPathComponent("libmissing.so"), .fileSystemError, "cannot be found"),
            ]
            for (file, code, words) in cases {
                let error = #expect(throws: SDKException.self) { try sdk.pluginLoader.load(path: file.path) }
                #expect(error?.code == code, "\(file.lastPathComponent): \(String(describing: error))")
                #expect(error?.message.contains(words) == true, "\(String(describing: error))")
            }
            #expect(sdk.pluginLoader.registeredNames().isEmpty)
        }
    }

    @Test("Loading twice, unloading while a model of it is loaded and unloading an unknown name are typed errors")
    func lifecycleErrors() async throws {
        try await withHost { sdk, made in
            let path = try CPlugin.plugin("c-stt", in: made).path
            try sdk.pluginLoader.load(path: path)
            let twice = #expect(throws: SDKException.self) { try sdk.pluginLoader.load(path: path) }
            #expect(twice?.code == .pluginAlreadyLoaded)

            try await sdk.loadSTTModel("c-model")
            let inUse = #expect(throws: SDKException.self) { try sdk.pluginLoader.unload(name: "c-stt") }
            #expect(inUse?.code == .pluginInUse)
            #expect(inUse?.message.contains("c-model") == true)
            // Still registered and working.
            #expect(try await sdk.transcribe(Self.tone).text == "16000 samples, peak 0.500")

            try await sdk.unloadSTTModel()
            try sdk.pluginLoader.unload(name: "c-stt")
            #expect(sdk.pluginLoader.registeredNames().isEmpty)
            let gone = await #expect(throws: SDKException.self) { try await sdk.loadSTTModel("c-model") }
            #expect(gone?.code == .noBackendForModel)
            let unknown = #expect(throws: SDKException.self) { try sdk.pluginLoader.unload(name: "c-stt") }
            #expect(unknown?.code == .pluginNotFound)

            // Loaded again, it serves again.
            try sdk.pluginLoader.load(path: path)
            try await sdk.loadSTTModel("c-model")
            #expect(try await sdk.transcribe(Self.tone).text == "16000 samples, peak 0.500")
        }
    }

    @Test(
        "A plugin holding a handle, or a load in progress, is not retired; once all are released it is, and no load records again"
    )
    func handleRecord() {
        let handles = PluginHandles()
        #expect(handles.record("a"))
        #expect(handles.record("a"))
        #expect(handles.record("b"))
        #expect(handles.retire() == ["a", "b"])
        handles.forget("a")
        handles.forget("b")
        #expect(handles.retire() == ["a"], "one handle of a is still held")
        handles.forget("a")
        handles.forget("a")
        #expect(handles.retire().isEmpty)
        #expect(!handles.record("c"), "a retired plugin takes no new load")
    }

    @Test("A model the plugin cannot load fails with the plugin's reason")
    func loadFailureCarriesTheReason() async throws {
        try await withHost { sdk, made in
            try sdk.pluginLoader.load(path: try CPlugin.plugin("c-stt", in: made).path)
            try FileManager.default.removeItem(at: made.appendingPathComponent("model.bin"))
            let error = await #expect(throws: SDKException.self) { try await sdk.loadSTTModel("c-model") }
            #expect(error != nil)
            #expect(error?.message.contains("cannot open the model file") == true || error?.code == .modelFileNotFound)
            // A failed load holds nothing of the plugin's: it unloads.
            try sdk.pluginLoader.unload(name: "c-stt")
        }
    }

    @Test("Plugins in the home's plugins folder load at initialization; a broken one is listed, not fatal")
    func folderPluginsLoadAtStart() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-plugins-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let folder = home.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = try CPlugin.plugin("c-stt", in: folder)
        _ = try CPlugin.plugin("old", version: "0u", in: folder)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("c-stt.c"))
        try FileManager.default.removeItem(at: folder.appendingPathComponent("old.c"))
        let sdk = try RunAnywhereSDK(home: home)
        #expect(sdk.pluginLoader.registeredNames() == ["c-stt"])
        let failed = sdk.pluginLoader.failedAtInitialization()
        #expect(failed.count == 1)
        #expect(failed.values.first?.contains("plugin_incompatible") == true, "\(failed)")
        await sdk.shutdown()
    }
}
