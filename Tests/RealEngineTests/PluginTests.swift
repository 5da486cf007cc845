import Foundation
import Testing

@_spi(Backend) @testable import RunAnywhere

/// The plugin host (core only, no engine backend) and the plugins scripts/build_plugins.sh
/// links, next to the CLI.
let pluginHostBinary = cliBinary.deletingLastPathComponent().appendingPathComponent("runanywhere-plugin-host")
let whisperPlugin = cliBinary.deletingLastPathComponent().appendingPathComponent(
    "plugins/libRunAnywhereWhisperCPPPlugin.so"
)

/// Runs the plugin host's steps on `home`; returns its exit status and one JSON object per step.
func pluginHost(
    _ steps: [String],
    home: URL,
    environment: [String: String] = [:]
) throws -> (status: Int32, steps: [[String: Any]], err: String) {
    let process = Process()
    process.executableURL = pluginHostBinary
    process.arguments = ["--home", home.path] + steps
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let output = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
    return (process.terminationStatus, try lines.map { try json($0) }, String(decoding: errors, as: UTF8.self))
}

/// A C library exporting the plugin entry point that answers `description` when asked to
/// describe itself and `registration` when asked to register, compiled with the system's
/// `cc` into `folder`.
func fakePlugin(named name: String, in folder: URL, description: String, registration: String) throws -> URL {
    func literal(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
    let source = folder.appendingPathComponent("\(name).c")
    let library = folder.appendingPathComponent("lib\(name).so")
    try """
    #include <stdlib.h>
    #include <string.h>
    char *runanywhere_plugin_entry(void *registrar) {
        return strdup(registrar ? \(literal(registration)) : \(literal(description)));
    }
    """.write(to: source, atomically: true, encoding: .utf8)
    let cc = Process()
    cc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    cc.arguments = ["cc", "-shared", "-fPIC", "-o", library.path, source.path]
    try cc.run()
    cc.waitUntilExit()
    try #require(cc.terminationStatus == 0, "cc failed on \(source.path)")
    return library
}

extension RealEngineTests {
    @Suite("Backends loaded at run time")
    struct PluginTests {
        /// One clip of each speaker of the real-speech set, up to eight.
        static func clips() throws -> [SpeechCorpus.Clip] {
            var seen: Set<String> = []
            return try SpeechCorpus.bootstrapped().clips.filter { seen.insert($0.speaker).inserted }.prefix(8).map {
                $0
            }
        }

        @Test(
            "A host without whisper.cpp linked loads the whisper plugin and transcribes real recordings as the linked backend does"
        )
        func whisperPluginTranscribes() async throws {
            try #require(FileManager.default.isExecutableFile(atPath: pluginHostBinary.path), "build first")
            try #require(FileManager.default.fileExists(atPath: whisperPlugin.path), "run scripts/build_plugins.sh")
            // Built without the backend: none of its types is in the host.
            let host = try Data(contentsOf: pluginHostBinary)
            #expect(host.range(of: Data("WhisperCPPSTTService".utf8)) == nil)
            let clips = try Self.clips()
            try #require(clips.count >= 5)

            try await withSDK(models: [DefaultModels.sttId]) { sdk in
                try await sdk.loadSTTModel(DefaultModels.sttId)
                var linked: [String] = []
                for clip in clips {
                    linked.append(try await sdk.transcribe(try WAVFile.read(contentsOf: clip.file)).text)
                }

                var steps = ["list", "load", whisperPlugin.path]
                for clip in clips { steps += ["transcribe", DefaultModels.sttId, clip.file.path] }
                let run = try pluginHost(steps, home: sdk.paths.home)
                #expect(run.status == 0, "\(run.steps) \(run.err)")
                try #require(run.steps.count == 2 + clips.count, "\(run.steps) \(run.err)")
                #expect(run.steps[0]["registered_names"] as? [String] == [], "the host links no backend")
                let plugin = try #require(run.steps[1]["plugin"] as? [String: Any])
                #expect(plugin["name"] as? String == "whispercpp")
                #expect(plugin["api_version"] as? Int == Int(PluginEntry.apiVersion))
                #expect(plugin["toolchain"] as? String == PluginEntry.toolchain)
                #expect(plugin["stays_mapped"] as? Bool == true)
                var results: [WordErrorRate] = []
                for (index, clip) in clips.enumerated() {
                    let step = run.steps[2 + index]
                    #expect(step["service_is_host_type"] as? Bool == true, "\(step)")
                    #expect(step["service_type"] as? String == "RunAnywhereWhisperCPP.WhisperCPPSTTService")
                    let transcript = try #require(step["transcript"] as? String, "\(step)")
                    print(
                        "plugin: \(clip.id): \"\(transcript)\" (linked: \"\(linked[index])\", said: \"\(clip.transcript)\")"
                    )
                    #expect(transcript == linked[index], "the plugin and the linked backend disagree on \(clip.id)")
                    results.append(WordErrorRate(reference: clip.transcript, hypothesis: transcript))
                }
                let wer = WordErrorRate(combining: results)
                print("plugin: WER \(wer.rate) over \(clips.count) real recordings")
                #expect(wer.rate <= 0.2)
            }
        }

        @Test(
            "A plugin registered for first use maps nothing of its engine until a model of its framework is loaded"
        )
        func openedOnFirstUse() async throws {
            try #require(FileManager.default.fileExists(atPath: whisperPlugin.path), "run scripts/build_plugins.sh")
            let clip = try #require(try Self.clips().first)
            try await withSDK(models: [DefaultModels.sttId]) { sdk in
                let run = try pluginHost(
                    [
                        "defer", whisperPlugin.path, "mapped", "transcribe", DefaultModels.sttId, clip.file.path,
                        "mapped",
                    ],
                    home: sdk.paths.home
                )
                try #require(run.status == 0 && run.steps.count == 4, "\(run.steps) \(run.err)")
                let registered = try #require(run.steps[0]["plugin"] as? [String: Any])
                #expect(registered["is_open"] as? Bool == false)
                #expect(registered["frameworks"] as? [String] == ["whispercpp"])
                #expect(run.steps[0]["registered_names"] as? [String] == ["whispercpp"])
                let before = try #require(run.steps[1]["mapped_libraries"] as? [String])
                #expect(!before.contains { $0.contains("whisper") || $0.contains("Plugin") }, "\(before)")

                // Loading a whisper.cpp model opens it.
                let transcript = try #require(run.steps[2]["transcript"] as? String)
                #expect(WordErrorRate(reference: clip.transcript, hypothesis: transcript).rate == 0, "\(transcript)")
                let after = try #require(run.steps[3]["mapped_libraries"] as? [String])
                #expect(after.contains(whisperPlugin.lastPathComponent), "\(after)")
                #expect(after.contains { $0.hasPrefix("libwhisper") }, "\(after)")
                let plugins = try #require(run.steps[3]["plugins"] as? [[String: Any]])
                #expect(plugins.map { $0["is_open"] as? Bool } == [true])
            }
        }

        @Test(
            "A description section that is not JSON or is for another version is refused unopened; one naming another module fails to open, typed"
        )
        func badDescriptionSections() async throws {
            try #require(FileManager.default.fileExists(atPath: whisperPlugin.path), "run scripts/build_plugins.sh")
            let clip = try #require(try Self.clips().first)
            try await withSDK(models: [DefaultModels.sttId]) { sdk in
                let folder = sdk.paths.home.appendingPathComponent("made")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                /// The whisper plugin with its description section replaced by `text`.
                func plugin(_ name: String, section text: String) throws -> String {
                    let library = folder.appendingPathComponent("lib\(name).so")
                    let section = folder.appendingPathComponent("\(name).json")
                    try FileManager.default.copyItem(at: whisperPlugin, to: library)
                    try text.write(to: section, atomically: true, encoding: .utf8)
                    let objcopy = Process()
                    objcopy.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                    objcopy.arguments = [
                        "objcopy", "--update-section", ".runanywhere_plugin=\(section.path)", library.path,
                    ]
                    try objcopy.run()
                    objcopy.waitUntilExit()
                    try #require(objcopy.terminationStatus == 0)
                    return library.path
                }
                let description =
                    #"{"api_version":"1","toolchain":"\#(PluginEntry.toolchain)","sdk_version":"\#(RunAnywhere.version)","#
                let garbage = try plugin("garbage", section: "<html>not json</html>")
                let future = try plugin(
                    "future",
                    section: #"{"api_version":"999","toolchain":"x","sdk_version":"9","name":"whispercpp"}"#
                )
                let misnamed = try plugin(
                    "misnamed",
                    section: description + #""name":"llamacpp","frameworks":"whispercpp","provides":""}"#
                )
                let run = try pluginHost(
                    [
                        "defer", garbage, "defer", future, "defer", misnamed, "mapped", "transcribe",
                        DefaultModels.sttId, clip.file.path,
                    ],
                    home: sdk.paths.home
                )
                try #require(run.steps.count == 5, "\(run.steps) \(run.err)")
                let codes = run.steps.map { $0["error_code"] as? String ?? "ok" }
                #expect(
                    codes == ["invalid_plugin", "plugin_incompatible", "ok", "ok", "no_backend_for_model"],
                    "\(run.steps)"
                )
                #expect(run.steps[1]["registered_names"] as? [String] == [], "refused files change nothing")
                #expect(run.steps[2]["registered_names"] as? [String] == ["llamacpp"], "registered by its description")
                let mapped = try #require(run.steps[3]["mapped_libraries"] as? [String])
                #expect(!mapped.contains { $0.contains("Plugin") }, "refused unopened: \(mapped)")
                // Opened for the whisper model, it turns out to be another module: dropped, nothing
                // registered, and the load's error says why.
                #expect(run.steps[4]["registered_names"] as? [String] == [], "\(run.steps[4])")
                let error = try #require(run.steps[4]["error"] as? String)
                #expect(
                    error.contains("could not be opened") && error.contains("is now the module whispercpp"),
                    "\(error)"
                )
                #expect(
                    run.steps[4]["plugins"] as? [Any] == nil || (run.steps[4]["plugins"] as? [Any])?.isEmpty == true
                )
            }
        }

        @Test("Loading twice, unloading with a model loaded, loading again, and plugin folders at initialization")
        func lifecycle() async throws {
            try #require(FileManager.default.fileExists(atPath: whisperPlugin.path), "run scripts/build_plugins.sh")
            let clip = try #require(try Self.clips().first)
            try await withSDK(models: [DefaultModels.sttId]) { sdk in
                let home = sdk.paths.home
                let transcribe = ["transcribe", DefaultModels.sttId, clip.file.path]
                let run = try pluginHost(
                    ["load", whisperPlugin.path, "load", whisperPlugin.path] + transcribe
                        + ["unload", "whispercpp"] + transcribe + ["unload", "whispercpp", "load", whisperPlugin.path]
                        + transcribe,
                    home: home
                )
                try #require(run.steps.count == 8, "\(run.steps) \(run.err)")
                let codes = run.steps.map { $0["error_code"] as? String ?? "ok" }
                #expect(
                    codes == [
                        "ok", "plugin_already_loaded", "ok", "ok", "no_backend_for_model", "plugin_not_found", "ok",
                        "ok",
                    ],
                    "\(run.steps)"
                )
                #expect(
                    run.steps[1]["registered_names"] as? [String] == ["whispercpp"],
                    "a refused load changes nothing"
                )
                #expect(run.steps[3]["registered_names"] as? [String] == [], "unloaded with its model")
                #expect(run.steps[2]["transcript"] as? String == run.steps[7]["transcript"] as? String)

                // A plugin in the home's plugins/ folder, and one on RUNANYWHERE_PLUGIN_PATH, load at initialization.
                let folder = home.appendingPathComponent("plugins")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try FileManager.default.copyItem(
                    at: whisperPlugin,
                    to: folder.appendingPathComponent(whisperPlugin.lastPathComponent)
                )
                let atStart = try pluginHost(["list"] + transcribe, home: home)
                #expect(atStart.status == 0, "\(atStart.steps) \(atStart.err)")
                #expect(atStart.steps.first?["registered_names"] as? [String] == ["whispercpp"])
                #expect(atStart.steps.last?["transcript"] as? String == run.steps[2]["transcript"] as? String)
                try FileManager.default.removeItem(at: folder)
                let onPath = try pluginHost(
                    ["list"],
                    home: home,
                    environment: [
                        PluginLoader.pathVariable: "/nonexistent:" + whisperPlugin.deletingLastPathComponent().path
                    ]
                )
                // That folder has every engine's plugin and the other modules', each registered unopened.
                #expect(
                    onPath.steps.first?["registered_names"] as? [String]
                        == [
                            "control-plane", "llamacpp", "pocketsphinx", "remote", "resemblyzer", "sqlite", "sherpa",
                            "system-voice", "whispercpp", "yaml",
                        ],
                    "\(onPath.steps)"
                )
            }
        }

        @Test(
            "Files that are not plugins, plugins of another version or toolchain, and a host without the core are typed errors that change nothing"
        )
        func badPlugins() async throws {
            try #require(FileManager.default.fileExists(atPath: whisperPlugin.path), "run scripts/build_plugins.sh")
            try await withSDK(models: []) { sdk in
                let folder = sdk.paths.home.appendingPathComponent("fixtures")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let text = folder.appendingPathComponent("notes.so")
                try "not a library".write(to: text, atomically: true, encoding: .utf8)
                let libz = [
                    "/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1",
                    "/lib/aarch64-linux-gnu/libz.so.1", "/usr/lib/aarch64-linux-gnu/libz.so.1",
                ]
                .first { FileManager.default.fileExists(atPath: $0) }
                let describe = { (version: String, toolchain: String, sdkVersion: String) in
                    #"{"api_version":"\#(version)","toolchain":"\#(toolchain)","sdk_version":"\#(sdkVersion)","name":"fake"}"#
                }
                let current = describe(String(PluginEntry.apiVersion), PluginEntry.toolchain, RunAnywhere.version)
                let cases: [(path: String, code: SDKException.Code, says: String)] = [
                    (folder.appendingPathComponent("missing.so").path, .invalidPlugin, "does not exist"),
                    (folder.path, .invalidPlugin, "is a folder"),
                    (text.path, .invalidPlugin, "no ELF header"),
                    ("/bin/true", .invalidPlugin, "not a RunAnywhere plugin"),
                    (libz ?? "/bin/true", .invalidPlugin, "not a RunAnywhere plugin"),
                    (
                        try fakePlugin(
                            named: "future",
                            in: folder,
                            description: describe("999", PluginEntry.toolchain, RunAnywhere.version),
                            registration: "{}"
                        ).path,
                        .pluginIncompatible, "API 999"
                    ),
                    (
                        try fakePlugin(
                            named: "oldswift",
                            in: folder,
                            description: describe(String(PluginEntry.apiVersion), "swift-5.9", RunAnywhere.version),
                            registration: "{}"
                        ).path,
                        .pluginIncompatible, "swift-5.9"
                    ),
                    (
                        try fakePlugin(
                            named: "oldsdk",
                            in: folder,
                            description: describe(String(PluginEntry.apiVersion), PluginEntry.toolchain, "0.0.1"),
                            registration: "{}"
                        ).path,
                        .pluginIncompatible, "RunAnywhere 0.0.1"
                    ),
                    (
                        try fakePlugin(named: "garbage", in: folder, description: "<html>", registration: "{}").path,
                        .invalidPlugin, "not its JSON"
                    ),
                    (
                        try fakePlugin(
                            named: "idle",
                            in: folder,
                            description: current,
                            registration: #"{"registered":"fake"}"#
                        ).path,
                        .invalidPlugin, "instead of its module fake"
                    ),
                    (
                        try fakePlugin(
                            named: "twocores",
                            in: folder,
                            description: current,
                            registration:
                                #"{"error":"the plugin is bound to a second copy of the RunAnywhere core","core_identity":"1"}"#
                        ).path,
                        .pluginIncompatible, "second copy"
                    ),
                    // This test process links the core without exporting it: a Swift plugin cannot bind.
                    (whisperPlugin.path, .invalidPlugin, "--export-dynamic"),
                ]
                let before = sdk.pluginLoader.registeredNames()
                for bad in cases {
                    do throws(SDKException) {
                        try sdk.pluginLoader.load(path: bad.path)
                        Issue.record("\(bad.path) loaded")
                    } catch {
                        #expect(error.code == bad.code, "\(bad.path): \(error)")
                        #expect(
                            error.description.contains(bad.says),
                            "\(bad.path): \(error.description) does not say \(bad.says)"
                        )
                    }
                    #expect(sdk.pluginLoader.registeredNames() == before)
                    #expect(sdk.pluginLoader.listLoaded().isEmpty)
                }
                await expectSDKError(.pluginNotFound) { try await sdk.pluginLoader.unload(name: "whispercpp") }
                await expectSDKError(.pluginNotFound) { try await sdk.pluginLoader.unload(name: "nothing") }
                #expect(sdk.pluginLoader.registeredCount == before.count)
                #expect(sdk.pluginLoader.apiVersion == PluginEntry.apiVersion)
            }
        }

        @Test(
            "The CLI lists its backends, its engine plugins unopened, refuses one twice, and names bad files and names"
        )
        func cliPlugins() throws {
            try #require(FileManager.default.fileExists(atPath: whisperPlugin.path), "run scripts/build_plugins.sh")
            let home = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ra-cli-plugins-\(UUID().uuidString)"
            )
            defer { try? FileManager.default.removeItem(at: home) }
            let list = try cli(["plugins", "list", "--json", "--home", home.path])
            #expect(list.status == 0, "\(list.err)")
            let report = try json(Substring(list.out))
            #expect(report["api_version"] as? Int == Int(PluginEntry.apiVersion))
            #expect((report["registered"] as? [String])?.contains("whispercpp") == true, "\(list.out)")
            // Its engines, storage, remote engines and control plane are the plugins next to it,
            // none opened by a command that runs no model, opens no index and calls no server.
            let loaded = try #require(report["loaded"] as? [[String: Any]])
            #expect(
                Set(loaded.compactMap { $0["name"] as? String })
                    == [
                        "llamacpp", "whispercpp", "sherpa", "system-voice", "pocketsphinx", "resemblyzer", "sqlite",
                        "yaml", "remote", "control-plane",
                    ],
                "\(list.out)"
            )
            #expect(loaded.allSatisfy { $0["is_open"] as? Bool == false }, "\(list.out)")

            // Its whisper.cpp backend is that plugin already.
            let twice = try cli(["plugins", "load", whisperPlugin.path, "--home", home.path])
            #expect(twice.status == 1)
            #expect(
                twice.err.contains("[plugin_already_loaded]") && twice.err.contains("already loaded"),
                "\(twice.err)"
            )
            let notes = home.appendingPathComponent("notes.so")
            try "text".write(to: notes, atomically: true, encoding: .utf8)
            let text = try cli(["plugins", "load", notes.path, "--home", home.path])
            #expect(text.status == 1)
            #expect(text.err.contains("[invalid_plugin]"), "\(text.err)")
            let unknown = try cli(["plugins", "unload", "nothing", "--home", home.path])
            #expect(unknown.status == 1)
            #expect(unknown.err.contains("[plugin_not_found]"), "\(unknown.err)")
            #expect(
                !FileManager.default.fileExists(atPath: home.appendingPathComponent("plugins").path),
                "nothing installed"
            )

            // A broken file in the plugins folder is reported, and never stops a command.
            try FileManager.default.createDirectory(
                at: home.appendingPathComponent("plugins"),
                withIntermediateDirectories: true
            )
            try FileManager.default.copyItem(at: notes, to: home.appendingPathComponent("plugins/libbroken.so"))
            let doctor = try cli(["doctor", "--json", "--home", home.path])
            #expect(doctor.status == 0, "\(doctor.err)")
            let plugins = try #require(try json(Substring(doctor.out))["plugins"] as? [String: Any])
            let failed = try #require(plugins["failed"] as? [String: String])
            #expect(failed.keys.contains { $0.hasSuffix("libbroken.so") }, "\(plugins)")
        }

        @Test("A file that is not a tool-server plugin is refused from its headers, before it is opened")
        func toolServerPluginChecks() throws {
            try #require(FileManager.default.fileExists(atPath: whisperPlugin.path), "run scripts/build_plugins.sh")
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ra-tools-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let text = folder.appendingPathComponent("notes.so")
            try Data("not a library".utf8).write(to: text)
            let cases: [(path: String, says: String)] = [
                (folder.appendingPathComponent("missing.so").path, "does not exist"),
                (folder.path, "is a folder"),
                (text.path, "no ELF header"),
                // An engine plugin: a real library, refused for lacking the tool-server entry point
                // (opening it here would fail instead on the core this test process does not export).
                (whisperPlugin.path, "does not define \(ToolServerConnector.entryPoint)"),
            ]
            for bad in cases {
                do throws(SDKException) {
                    try ToolServerConnector.open(plugin: bad.path)
                    Issue.record("\(bad.path) opened")
                } catch {
                    #expect(error.code == .invalidPlugin, "\(bad.path): \(error)")
                    #expect(error.description.contains(bad.says), "\(bad.path): \(error.description)")
                }
            }
        }

        @Test(
            "The plugin hosts export what the core adds to other modules' types, so a plugin can call trimmed() or use String as Generable"
        )
        func hostsExportTheCoresExtensions() throws {
            // Mangled after the extended type, not the core ($s11RunAnywhere...): a version
            // script matching only the core's prefix left them out, and a plugin calling one
            // failed to load with "undefined symbol".
            let expected = [
                "$sSy11RunAnywhereE7trimmedSSyF",  // StringProtocol.trimmed()
                "$sSS11RunAnywhere9GenerableAAMc",  // String: Generable, its conformance
                "$sSS11RunAnywhere9GenerableAAWP",  // ... and witness table
            ]
            for host in [cliBinary, pluginHostBinary] {
                let nm = Process()
                nm.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                nm.arguments = ["nm", "-D", "--defined-only", host.path]
                let out = Pipe()
                nm.standardOutput = out
                try nm.run()
                let listing = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                nm.waitUntilExit()
                try #require(nm.terminationStatus == 0, "nm failed on \(host.path)")
                let exported = Set(
                    listing.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
                )
                for symbol in expected {
                    #expect(exported.contains(symbol), "\(host.lastPathComponent) does not export \(symbol)")
                }
            }
        }
    }
}
