import Foundation
import RealEngineTestSupport
import RunAnywhereTestSupport
import RunAnywhereTesting
import RunAnywhereTestingFileServer
import Testing

@_spi(Backend) @testable import RunAnywhere

/// A test's own SDK instance plus a real HTTP server on 127.0.0.1 serving `root`.
func withDownloadServer<T>(_ body: (LocalFileServer, RunAnywhereSDK) async throws -> T) async throws -> T {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("ra-serve-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let server = try await LocalFileServer.start(root: root)
    do {
        let result = try await withSDK(models: []) { sdk in
            var config = DownloadConfiguration(initialRetryDelay: 0.05, maxRetryDelay: 0.2)
            config.reservedFreeBytes = 0
            try sdk.setDownloadConfiguration(config)
            return try await body(server, sdk)
        }
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// Copies a default model's file into the served folder; returns its name there.
@discardableResult
func serve(_ source: URL, in server: LocalFileServer, as name: String? = nil) throws -> String {
    let name = name ?? source.lastPathComponent
    try FileManager.default.copyItem(at: source, to: server.root.appendingPathComponent(name))
    return name
}

/// Reads a stream to its end.
func collect(_ stream: AsyncStream<DownloadProgress>) async -> [DownloadProgress] {
    var reports: [DownloadProgress] = []
    for await report in stream { reports.append(report) }
    return reports
}

/// Runs `body` with `scripts/tls_test_server.py` serving https on 127.0.0.1 (`/hello`, `/hop`,
/// and `/downgrade` redirecting to `target`): its base URL and the certificate to trust.
private func withTLSServer<T>(
    redirectingTo target: URL,
    _ body: (_ base: String, _ authorities: URL) async throws -> T
) async throws -> T {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
        "python3", root.appendingPathComponent("scripts/tls_test_server.py").path, target.absoluteString,
    ]
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    try process.run()
    defer {
        try? stdin.fileHandleForWriting.close()  // the server exits when its stdin closes
        process.waitUntilExit()
    }
    // The first line, `PORT CERTIFICATE_FILE`, once it listens.
    let line = try await onOwnThread { () -> String in
        var bytes = Data()
        while !bytes.contains(UInt8(ascii: "\n")) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            bytes += chunk
        }
        return String(decoding: bytes, as: UTF8.self)
    }
    let fields = line.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    let port = try #require(fields.first.flatMap { Int($0) }, "tls_test_server.py said: \(line)")
    return try await body("https://127.0.0.1:\(port)", URL(fileURLWithPath: fields[1]))
}

/// Runs a command-line tool and fails the test if it fails.
private func run(_ tool: String, _ arguments: [String], in folder: URL? = nil) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    process.currentDirectoryURL = folder
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "\(tool) \(arguments.joined(separator: " ")) failed")
}

private func entries(under folder: URL) -> [String] {
    (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).sorted()
}

/// Serves the default VAD model (a real 2.3 MB ONNX file) and registers it by URL as `id`.
@discardableResult
private func registerServedVAD(
    _ id: String,
    in sdk: RunAnywhereSDK,
    on server: LocalFileServer,
    fileName: String? = nil,
    sha256: String? = nil
) throws -> (name: String, source: URL) {
    let vad = try #require(try DefaultModels.model(DefaultModels.vadId).localPath)
    if !FileManager.default.fileExists(atPath: server.root.appendingPathComponent(vad.lastPathComponent).path) {
        try serve(vad, in: server)
    }
    try sdk.registerModel(
        id: id,
        name: id,
        url: server.url(for: vad.lastPathComponent),
        framework: .sherpaOnnx,
        category: .voiceActivityDetection,
        fileName: fileName,
        sha256: sha256
    )
    return (vad.lastPathComponent, vad)
}

/// Expects a failed download to have left nothing: no partial files, no model folder, not downloaded.
private func expectNoTrace(
    of id: String,
    framework: InferenceFramework,
    in sdk: RunAnywhereSDK,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let home = sdk.paths.home
    #expect(entries(under: home.appendingPathComponent("tmp/downloads")).isEmpty, sourceLocation: sourceLocation)
    #expect(
        !FileManager.default.fileExists(atPath: home.appendingPathComponent("models/\(framework.rawValue)/\(id)").path),
        sourceLocation: sourceLocation
    )
    #expect(try !sdk.model(id).isDownloaded, sourceLocation: sourceLocation)
}

extension RealEngineTests {
    @Suite("Model downloads against a local HTTP server")
    struct DownloadTests {
        @Test(
            "A connection dropped halfway is resumed with a Range request, the file's SHA-256 matches, and the model generates text"
        )
        func droppedConnectionResumes() async throws {
            let gguf = try #require(try DefaultModels.llm().localPath)
            let expected = try sha256sum(gguf)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: gguf.path)[.size] as? NSNumber)
                .int64Value
            try await withDownloadServer { server, sdk in
                let home = sdk.paths.home
                let name = try serve(gguf, in: server)
                server.setFault(FaultPlan(dropAfterBytes: size / 2), for: name)
                let events = sdk.events.events(for: .download)
                try sdk.registerModel(
                    id: "dl-llm",
                    name: "Downloaded SmolLM2",
                    url: server.url(for: name),
                    framework: .llamaCpp,
                    category: .llm,
                    sha256: expected
                )
                let reports = await collect(try sdk.downloadModel("dl-llm"))
                let last = try #require(reports.last)
                #expect(last.stage == .completed, "\(last.error.map(String.init(describing:)) ?? "")")
                #expect(reports.contains { $0.retry >= 1 }, "a retry was reported")
                #expect(reports.contains { $0.stage == .validating })
                #expect(reports.contains { $0.bytesPerSecond > 0 && $0.estimatedTimeRemaining != nil })
                var names: [String] = []
                for await event in events {
                    names.append(event.kind.name)
                    if case .downloadCompleted(let id, let bytes, _) = event.kind {
                        #expect(id == "dl-llm" && bytes >= size)
                        break
                    }
                }
                #expect(names == ["download_started", "download_completed"])

                let gets = server.requests(for: name).filter { $0.method == "GET" }
                #expect(gets.count == 2)
                #expect(gets.first?.range == nil)
                let resumedAt = try #require(
                    gets.last?.range.flatMap { Int64($0.dropFirst("bytes=".count).dropLast()) }
                )
                // The server cut the connection after sending half; what reached the file before the
                // cut (bytes still queued in the server may be lost) is kept, and only the rest is fetched.
                #expect(resumedAt > 0 && resumedAt <= size / 2, "resumed at \(resumedAt) of \(size)")
                #expect(gets.last?.status == 206)
                #expect(gets.last?.bodyBytes == size - resumedAt)

                let model = try sdk.model("dl-llm")
                let path = try #require(model.localPath)
                #expect(path.path.hasPrefix(home.appendingPathComponent("models/llamacpp/dl-llm").path))
                #expect(try sha256sum(path) == expected)
                #expect(model.contextLength != nil && model.downloadedAt != nil)
                #expect(entries(under: home.appendingPathComponent("tmp/downloads")).isEmpty)

                try await sdk.loadModel("dl-llm")
                let result = try await sdk.generate("Name a colour.", options: greedy)
                #expect(!result.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
            }
        }

        @Test(
            "An archive registered by the original SDK's URL form finds its model file where its structure says, and loads"
        )
        func archiveByStructure() async throws {
            let vad = try #require(try DefaultModels.model(DefaultModels.vadId).localPath)
            try await withDownloadServer { server, sdk in
                let work = server.root.appendingPathComponent("work")
                let inner = work.appendingPathComponent("silero")
                try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: vad, to: inner.appendingPathComponent("silero_vad.onnx"))
                try Data("Silero VAD v5, MIT licence\n".utf8).write(to: inner.appendingPathComponent("README"))
                let archive = server.root.appendingPathComponent("silero-vad.tar.gz")
                try run("tar", ["czf", archive.path, "silero"], in: work)
                let registered = try await sdk.registerModel(
                    archive: server.url(for: "silero-vad.tar.gz").absoluteString,
                    structure: .nestedDirectory,
                    name: "Silero by structure",
                    framework: .sherpaOnnx,
                    modality: .voiceActivityDetection
                )
                #expect(registered.id == "silero-vad")
                #expect(registered.format == .unknown, "the format is known once the archive is unpacked")
                let reports = await collect(try sdk.downloadModel("silero-vad"))
                #expect(reports.last?.stage == .completed, "\(reports.last?.error.map(String.init(describing:)) ?? "")")
                let model = try sdk.model("silero-vad")
                let folder = sdk.paths.home.appendingPathComponent("models/sherpa/silero-vad")
                #expect(model.localPath == folder.appendingPathComponent("silero/silero_vad.onnx"))
                #expect(model.format == .onnx)
                #expect(model.artifact?.primaryPath == "silero/silero_vad.onnx")
                try await sdk.loadVADModel("silero-vad")
                let result = try await sdk.detectVoiceActivity(
                    PCMAudio(samples: [Float](repeating: 0, count: 512), sampleRate: 16_000)
                )
                #expect(!result.isSpeech)
            }
        }

        @Test("Two 500 answers are retried and the third request succeeds")
        func serverErrorsAreRetried() async throws {
            try await withDownloadServer { server, sdk in
                let (name, vad) = try registerServedVAD("dl-vad", in: sdk, on: server, fileName: "vad.onnx")
                server.setFault(FaultPlan(failures: [500, 500]), for: name)
                let model = try await sdk.downloadModel("dl-vad") { _ in }
                #expect(model.localPath?.lastPathComponent == "vad.onnx")
                #expect(server.requests(for: name).filter { $0.method == "GET" }.map(\.status) == [500, 500, 200])
                #expect(
                    try FileManager.default.contentsEqual(atPath: #require(model.localPath).path, andPath: vad.path)
                )
            }
        }

        @Test("A 404 fails at once with a clear error and nothing is marked downloaded")
        func notFoundFails() async throws {
            try await withDownloadServer { server, sdk in
                let home = sdk.paths.home
                try sdk.registerModel(
                    id: "dl-missing",
                    name: "Missing",
                    url: server.url(for: "nope.gguf"),
                    framework: .llamaCpp,
                    category: .llm
                )
                let last = try #require(await collect(try sdk.downloadModel("dl-missing")).last)
                #expect(last.stage == .failed)
                #expect(last.error?.code == .downloadFailed)
                #expect(last.error?.message.contains("404") == true)
                #expect(server.requests(for: "nope.gguf").count == 1, "a 404 is not retried")
                #expect(
                    entries(under: home.appendingPathComponent("tmp")).filter { !$0.hasPrefix("downloads") }.isEmpty
                )
                try expectNoTrace(of: "dl-missing", framework: .llamaCpp, in: sdk)
            }
        }

        @Test("A wrong SHA-256 rejects the download and removes its files")
        func checksumMismatchIsRejected() async throws {
            try await withDownloadServer { server, sdk in
                let (_, vad) = try registerServedVAD(
                    "dl-bad-sum",
                    in: sdk,
                    on: server,
                    sha256: String(repeating: "ab", count: 32)
                )
                let last = try #require(await collect(try sdk.downloadModel("dl-bad-sum")).last)
                #expect(last.error?.code == .checksumMismatch)
                #expect(last.error?.message.contains(try sha256sum(vad)) == true, "the message names the actual digest")
                try expectNoTrace(of: "dl-bad-sum", framework: .sherpaOnnx, in: sdk)
            }
        }

        @Test("Cancelling a transfer in progress stops it before its end and removes the partial file")
        func cancelRemovesPartialFiles() async throws {
            let gguf = try #require(try DefaultModels.llm().localPath)
            try await withDownloadServer { server, sdk in
                let home = sdk.paths.home
                let name = try serve(gguf, in: server)
                server.setFault(FaultPlan(bytesPerSecond: 2 << 20), for: name)
                try sdk.registerModel(
                    id: "dl-slow",
                    name: "Slow",
                    url: server.url(for: name),
                    framework: .llamaCpp,
                    category: .llm
                )
                var cancelled = false
                var last: DownloadProgress?
                for await report in try sdk.downloadModel("dl-slow") {
                    last = report
                    if !cancelled, report.bytesDownloaded >= 1 << 20 {
                        #expect(
                            FileManager.default.fileExists(
                                atPath: home.appendingPathComponent("tmp/downloads/dl-slow").path
                            )
                        )
                        #expect(try sdk.cancelDownload("dl-slow"))
                        cancelled = true
                    }
                }
                // At 2 MiB/s the whole file takes most of a minute: the cancel, not the end of the
                // file, ended the stream (the bytes below say so, not a clock).
                #expect(cancelled)
                #expect(last?.error?.code == .downloadCancelled)
                let size = try #require(FileSystem.fileSize(gguf))
                #expect((last?.bytesDownloaded ?? size) < size, "the transfer did not run to its end")
                #expect(try sdk.activeDownloads().isEmpty)
                try expectNoTrace(of: "dl-slow", framework: .llamaCpp, in: sdk)
            }
        }

        @Test("Two downloads of one model at once share a single transfer")
        func concurrentDownloadsCoalesce() async throws {
            try await withDownloadServer { server, sdk in
                let (name, _) = try registerServedVAD("dl-twice", in: sdk, on: server)
                server.setFault(FaultPlan(bytesPerSecond: 8 << 20), for: name)
                let first = try sdk.downloadModel("dl-twice")
                let second = try sdk.downloadModel("dl-twice")
                async let a = collect(first)
                async let b = collect(second)
                let (reportsA, reportsB) = await (a, b)
                #expect(reportsA.last?.stage == .completed)
                #expect(reportsB.last?.stage == .completed)
                #expect(reportsA.last?.model == reportsB.last?.model)
                #expect(server.requests(for: name).filter { $0.method == "GET" }.count == 1)
            }
        }

        @Test("A download larger than the storage limit is refused before any byte is transferred")
        func storageLimitRefusesEarly() async throws {
            let gguf = try #require(try DefaultModels.llm().localPath)
            try await withDownloadServer { server, sdk in
                let home = sdk.paths.home
                let name = try serve(gguf, in: server)
                var config = try sdk.downloadConfiguration()
                config.storageLimitBytes = 10 << 20
                try sdk.setDownloadConfiguration(config)
                try sdk.registerModel(
                    id: "dl-big",
                    name: "Big",
                    url: server.url(for: name),
                    framework: .llamaCpp,
                    category: .llm
                )
                let last = try #require(await collect(try sdk.downloadModel("dl-big")).last)
                #expect(last.error?.code == .insufficientStorage)
                #expect(server.requests(for: name).map(\.method) == ["HEAD"], "only the size was asked")
                #expect(entries(under: home.appendingPathComponent("tmp/downloads")).isEmpty)
            }
        }

        @Test("A network failure past the retries keeps the partial file, and the next download resumes it")
        func partialFileSurvivesForTheNextAttempt() async throws {
            try await withDownloadServer { server, sdk in
                let home = sdk.paths.home
                let (name, vad) = try registerServedVAD("dl-flaky", in: sdk, on: server)
                var config = try sdk.downloadConfiguration()
                config.maxRetries = 0
                try sdk.setDownloadConfiguration(config)
                server.setFault(FaultPlan(dropAfterBytes: 1 << 20), for: name)
                let failed = try #require(await collect(try sdk.downloadModel("dl-flaky")).last)
                #expect(failed.error?.code == .downloadFailed)
                let partial = home.appendingPathComponent("tmp/downloads/dl-flaky/\(name).part")
                #expect(FileSystem.allocatedSize(of: partial) == 1 << 20)

                let model = try await sdk.downloadModel("dl-flaky") { _ in }
                #expect(server.requests(for: name).filter { $0.method == "GET" }.last?.range == "bytes=\(1 << 20)-")
                #expect(
                    try FileManager.default.contentsEqual(atPath: #require(model.localPath).path, andPath: vad.path)
                )
            }
        }

        @Test("A multi-file voice (model, config and tokens) downloads side by side and speaks")
        func multiFileVoiceDownloadsAndSpeaks() async throws {
            let onnx = try #require(try DefaultModels.model(DefaultModels.ttsId).localPath)
            let folder = onnx.deletingLastPathComponent()
            try await withDownloadServer { server, sdk in
                let home = sdk.paths.home
                var files: [RemoteFile] = []
                for name in [onnx.lastPathComponent, onnx.lastPathComponent + ".json", "tokens.txt"] {
                    try serve(folder.appendingPathComponent(name), in: server, as: "joe-\(name)")
                    files.append(
                        RemoteFile(
                            url: server.url(for: "joe-\(name)"),
                            fileName: name,
                            sha256: try sha256sum(folder.appendingPathComponent(name))
                        )
                    )
                }
                try sdk.registerModel(
                    multiFile: files,
                    primaryFile: onnx.lastPathComponent,
                    id: "dl-joe",
                    name: "Joe",
                    framework: .sherpaOnnx,
                    category: .speechSynthesis
                )
                let model = try await sdk.downloadModel("dl-joe") { _ in }
                let dir = home.appendingPathComponent("models/sherpa/dl-joe")
                #expect(model.localPath == dir.appendingPathComponent(onnx.lastPathComponent))
                #expect(
                    entries(under: dir) == [
                        "en_US-joe-medium.onnx", "en_US-joe-medium.onnx.json", "model.json", "tokens.txt",
                    ]
                )

                try await sdk.loadTTSModel("dl-joe")
                let speech = try await sdk.synthesize("Downloaded voices speak too.")
                #expect(speech.audio.duration > 1)
            }
        }

        @Test("A file that changed on the server since the partial download is fetched whole again, never spliced")
        func changedFileIsNotSpliced() async throws {
            let vad = try #require(try DefaultModels.model(DefaultModels.vadId).localPath)
            let voice = try #require(try DefaultModels.model(DefaultModels.ttsId).localPath).deletingLastPathComponent()
                .appendingPathComponent("tokens.txt")
            try await withDownloadServer { server, sdk in
                let home = sdk.paths.home
                let name = "model.onnx"
                try serve(vad, in: server, as: name)
                var config = try sdk.downloadConfiguration()
                config.maxRetries = 0
                try sdk.setDownloadConfiguration(config)
                server.setFault(FaultPlan(dropAfterBytes: 1 << 20), for: name)
                try sdk.registerModel(
                    id: "dl-changed",
                    name: "Changed",
                    url: server.url(for: name),
                    framework: .sherpaOnnx,
                    category: .voiceActivityDetection
                )
                let failed = try #require(await collect(try sdk.downloadModel("dl-changed")).last)
                #expect(failed.error?.code == .downloadFailed)
                #expect(
                    FileSystem.allocatedSize(of: home.appendingPathComponent("tmp/downloads/dl-changed/\(name).part"))
                        == 1 << 20
                )

                // A new version of the file appears under the same name.
                let served = server.root.appendingPathComponent(name)
                try FileManager.default.removeItem(at: served)
                var replacement = try Data(contentsOf: voice)
                while replacement.count < 3 << 20 { replacement.append(replacement) }
                try replacement.write(to: served)
                let model = try await sdk.downloadModel("dl-changed") { _ in }
                let last = try #require(server.requests(for: name).last)
                #expect(last.range != nil && last.status == 200, "If-Range made the server send the whole new file")
                #expect(try Data(contentsOf: #require(model.localPath)) == replacement)
            }
        }

        @Test("A download another process holds the lock of is left alone")
        func lockedDownloadIsLeftAlone() async throws {
            try await withDownloadServer { server, sdk in
                let home = sdk.paths.home
                try sdk.registerModel(
                    id: "dl-locked",
                    name: "Locked",
                    url: server.url(for: "m.onnx"),
                    framework: .sherpaOnnx,
                    category: .voiceActivityDetection
                )
                let work = home.appendingPathComponent("tmp/downloads/dl-locked")
                try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
                try Data(count: 100).write(to: work.appendingPathComponent("m.onnx.part"))
                var otherProcess = FileLock(work.appendingPathComponent(DownloadManager.lockName))
                #expect(otherProcess != nil)
                let last = try #require(await collect(try sdk.downloadModel("dl-locked")).last)
                #expect(last.error?.code == .downloadFailed)
                #expect(last.error?.message.contains("Another process") == true)
                #expect(try sdk.cleanTempFiles() == 0)
                #expect(FileSystem.allocatedSize(of: work.appendingPathComponent("m.onnx.part")) == 100)
                otherProcess = nil
                #expect(try sdk.cleanTempFiles() > 0)
                #expect(!FileManager.default.fileExists(atPath: work.path))
                #expect(server.requests.isEmpty)
            }
        }

        @Test(
            "Archives of every type unpack into the model's folder and the model loads",
            arguments: ArchiveType.allCases
        )
        func archivesUnpackAndLoad(type: ArchiveType) async throws {
            let vad = try #require(try DefaultModels.model(DefaultModels.vadId).localPath)
            try await withDownloadServer { server, sdk in
                let home = sdk.paths.home
                // A real archive of real model files, with a folder inside.
                let work = server.root.appendingPathComponent("work")
                let inner = work.appendingPathComponent("silero")
                try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: vad, to: inner.appendingPathComponent("silero_vad.onnx"))
                try Data("Silero VAD v5, MIT licence\n".utf8).write(to: inner.appendingPathComponent("README"))
                let archiveName = "silero.\(type.rawValue)"
                let archive = server.root.appendingPathComponent(archiveName)
                switch type {
                case .zip: try run("python3", ["-m", "zipfile", "-c", archive.path, "silero"], in: work)
                case .tarGz: try run("tar", ["czf", archive.path, "silero"], in: work)
                case .tarBz2: try run("tar", ["cjf", archive.path, "silero"], in: work)
                case .tarXz: try run("tar", ["cJf", archive.path, "silero"], in: work)
                }
                let spec = try ModelArchive(
                    url: server.url(for: archiveName),
                    primaryFile: "silero/silero_vad.onnx",
                    expectedFiles: ["silero/README"],
                    sha256: try sha256sum(archive)
                )
                #expect(spec.type == type)
                try sdk.registerModel(
                    archive: spec,
                    id: "dl-archive",
                    name: "Archived VAD",
                    framework: .sherpaOnnx,
                    category: .voiceActivityDetection
                )
                let reports = await collect(try sdk.downloadModel("dl-archive"))
                #expect(reports.last?.stage == .completed, "\(reports.last?.error.map(String.init(describing:)) ?? "")")
                #expect(reports.map(\.stage).contains(.extracting))
                let model = try sdk.model("dl-archive")
                let folder = home.appendingPathComponent("models/sherpa/dl-archive")
                #expect(model.localPath == folder.appendingPathComponent("silero/silero_vad.onnx"))
                #expect(entries(under: folder) == ["model.json", "silero", "silero/README", "silero/silero_vad.onnx"])
                #expect(
                    try FileManager.default.contentsEqual(atPath: #require(model.localPath).path, andPath: vad.path)
                )

                try await sdk.loadVADModel("dl-archive")
                let result = try await sdk.detectVoiceActivity(
                    PCMAudio(samples: [Float](repeating: 0, count: 512), sampleRate: 16_000)
                )
                #expect(!result.isSpeech)
            }
        }

        @Test(
            "An archive entry escaping the model folder (../, an absolute path, a symlink out) is refused and nothing is written",
            arguments: ["zip-slip", "absolute", "symlink"]
        )
        func unsafeArchivesAreRefused(kind: String) async throws {
            try await withDownloadServer { server, sdk in
                let home = sdk.paths.home
                let marker = "ra-evil-\(UUID().uuidString).txt"
                let outside = FileManager.default.temporaryDirectory.appendingPathComponent(marker)
                let name: String
                let script: String
                switch kind {
                case "zip-slip":
                    name = "evil.zip"
                    script = """
                        import zipfile, sys
                        with zipfile.ZipFile(sys.argv[1], 'w') as z:
                            z.writestr('model/ok.onnx', b'fine')
                            z.writestr('../../../../\(marker)', b'pwned')
                        """
                case "absolute":
                    name = "evil.tar.gz"
                    script = """
                        import tarfile, io, sys
                        with tarfile.open(sys.argv[1], 'w:gz') as t:
                            for path in ['model/ok.onnx', '\(outside.path)']:
                                info = tarfile.TarInfo(path); info.size = 5
                                t.addfile(info, io.BytesIO(b'pwned'))
                        """
                default:
                    name = "evil.tar.xz"
                    script = """
                        import tarfile, io, sys
                        with tarfile.open(sys.argv[1], 'w:xz') as t:
                            info = tarfile.TarInfo('model/ok.onnx'); info.size = 4
                            t.addfile(info, io.BytesIO(b'fine'))
                            link = tarfile.TarInfo('model/escape'); link.type = tarfile.SYMTYPE
                            link.linkname = '../../../../../../tmp'
                            t.addfile(link)
                            info = tarfile.TarInfo('model/escape/\(marker)'); info.size = 5
                            t.addfile(info, io.BytesIO(b'pwned'))
                        """
                }
                try run("python3", ["-c", script, server.root.appendingPathComponent(name).path])
                let spec = try ModelArchive(url: server.url(for: name), primaryFile: "model/ok.onnx")
                try sdk.registerModel(
                    archive: spec,
                    id: "dl-evil",
                    name: "Evil",
                    framework: .sherpaOnnx,
                    category: .voiceActivityDetection
                )
                let last = try #require(await collect(try sdk.downloadModel("dl-evil")).last)
                #expect(last.error?.code == .unsafeArchive, "\(last.error.map(String.init(describing:)) ?? "no error")")
                #expect(!FileManager.default.fileExists(atPath: outside.path))
                #expect(!entries(under: home).contains { $0.hasSuffix(marker) || $0.hasSuffix("ok.onnx") })
                try expectNoTrace(of: "dl-evil", framework: .sherpaOnnx, in: sdk)
            }
        }

        @Test("Storage info, deleting a model's files, clearing the cache and cleaning temporary files")
        func storageManagement() async throws {
            try await withDownloadServer { server, sdk in
                let home = sdk.paths.home
                let (_, vad) = try registerServedVAD("dl-store", in: sdk, on: server)
                try await sdk.downloadModel("dl-store") { _ in }
                let requests = server.requests.count
                let repeated = await collect(try sdk.downloadModel("dl-store"))
                #expect(repeated.map(\.stage) == [.completed], "a downloaded model completes at once")
                #expect(server.requests.count == requests)
                try await sdk.loadVADModel("dl-store")

                let info = try sdk.storageInfo()
                let stored = try #require(info.models.first { $0.id == "dl-store" })
                let fileSize = FileSystem.allocatedSize(of: vad)
                #expect(stored.sizeBytes >= fileSize && stored.sizeBytes < fileSize + 4096)
                #expect(stored.lastUsedAt != nil && stored.downloadedAt != nil)
                #expect(info.modelsBytes == info.models.reduce(0) { $0 + $1.sizeBytes })
                #expect(
                    info.device.totalBytes > 0 && info.device.freeBytes > 0
                        && info.device.freeBytes <= info.device.totalBytes
                )

                try Data(count: 4096).write(to: home.appendingPathComponent("cache/embeddings.bin"))
                try FileManager.default.createDirectory(
                    at: home.appendingPathComponent("tmp/downloads/ghost"),
                    withIntermediateDirectories: true
                )
                try Data(count: 8192).write(to: home.appendingPathComponent("tmp/downloads/ghost/x.part"))
                #expect(try sdk.clearCache() == 4096)
                #expect(try sdk.cleanTempFiles() == 8192)
                #expect(entries(under: home.appendingPathComponent("cache")).isEmpty)
                #expect(entries(under: home.appendingPathComponent("tmp/downloads")).isEmpty)

                try await sdk.deleteModel("dl-store")
                let model = try sdk.model("dl-store")
                #expect(!model.isDownloaded && model.isDownloadable)
                #expect(
                    !FileManager.default.fileExists(atPath: home.appendingPathComponent("models/sherpa/dl-store").path)
                )
                #expect(try sdk.storageInfo().models.allSatisfy { $0.id != "dl-store" })
                await expectCode(.modelFileNotFound) { try await sdk.loadVADModel("dl-store") }

                // Deleted files come back with another download.
                let again = try await sdk.downloadModel("dl-store") { _ in }
                #expect(again.isDownloaded)
            }
        }

        @Test("At start-up a model whose files vanished is no longer downloaded and orphan temp files go")
        func startUpReconciles() async throws {
            try await withDownloadServer { server, sdk in
                let home = sdk.paths.home
                let (name, _) = try registerServedVAD("dl-gone", in: sdk, on: server)
                try registerServedVAD("dl-pending", in: sdk, on: server)
                let model = try await sdk.downloadModel("dl-gone") { _ in }
                await sdk.shutdown()

                try FileManager.default.removeItem(at: #require(model.localPath))
                let tmp = home.appendingPathComponent("tmp")
                for (folder, file) in [("downloads/ghost", "x.part"), ("downloads/dl-pending", "\(name).part")] {
                    try FileManager.default.createDirectory(
                        at: tmp.appendingPathComponent(folder),
                        withIntermediateDirectories: true
                    )
                    try Data(count: 100).write(to: tmp.appendingPathComponent(folder).appendingPathComponent(file))
                }
                let stale = tmp.appendingPathComponent("import-stale")
                try Data(count: 100).write(to: stale)
                try FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSinceNow: -7200)],
                    ofItemAtPath: stale.path
                )

                let restarted = try RunAnywhereSDK(home: home, environment: .development, modules: allModules)
                try await restarted.completeServicesInitialization()
                #expect(try !restarted.model("dl-gone").isDownloaded)
                #expect(try restarted.model("dl-gone").isDownloadable)
                #expect(
                    entries(under: tmp) == ["downloads", "downloads/dl-pending", "downloads/dl-pending/\(name).part"],
                    "only the resumable partial of a registered model stays"
                )
                await restarted.shutdown()
            }
        }

        @Test("Bad registrations are refused with typed errors and leave the registry as it was")
        func badRegistrations() async throws {
            try await withDownloadServer { server, sdk in
                let url = server.url(for: "m.gguf")
                let before = try sdk.availableModels()
                await expectCode(.invalidInput) {
                    try sdk.registerModel(
                        id: "x",
                        name: "X",
                        url: URL(string: "ftp://host/m.gguf")!,
                        framework: .llamaCpp,
                        category: .llm
                    )
                }
                await expectCode(.invalidInput) {
                    try sdk.registerModel(
                        id: "x",
                        name: "X",
                        url: url,
                        framework: .llamaCpp,
                        category: .llm,
                        sha256: "abc"
                    )
                }
                await expectCode(.invalidInput) {
                    try sdk.registerModel(
                        multiFile: [RemoteFile(url: url)],
                        primaryFile: "other.onnx",
                        id: "x",
                        name: "X",
                        framework: .sherpaOnnx,
                        category: .speechSynthesis
                    )
                }
                await expectCode(.invalidInput) {
                    try sdk.registerModel(
                        archive: ModelArchive(url: server.url(for: "a.tar.gz"), primaryFile: "../m.onnx"),
                        id: "x",
                        name: "X",
                        framework: .sherpaOnnx,
                        category: .speechSynthesis
                    )
                }
                await expectCode(.invalidInput) {
                    try ModelArchive(url: server.url(for: "a.rar"), primaryFile: "m.onnx")
                }
                await expectCode(.invalidModelId) {
                    try sdk.registerModel(id: "Bad Id", name: "X", url: url, framework: .llamaCpp, category: .llm)
                }
                #expect(try sdk.availableModels() == before)
                try sdk.registerModel(id: "x", name: "X", url: url, framework: .llamaCpp, category: .llm)
                await expectCode(.modelAlreadyExists) {
                    try sdk.registerModel(id: "x", name: "Y", url: url, framework: .llamaCpp, category: .llm)
                }
                await expectCode(.modelNotFound) { try sdk.downloadModel("nope") }
                try sdk.registerModel(
                    ModelInfo(id: "local", name: "L", category: .llm, format: .gguf, framework: .llamaCpp)
                )
                await expectCode(.modelNotDownloadable) { try sdk.downloadModel("local") }
                await expectCode(.invalidConfiguration) {
                    try sdk.setDownloadConfiguration(DownloadConfiguration(maxRetries: -1))
                }
            }
        }
    }
}

/// `myapp-models://catalog/NAME` files from the app's own server, which wants its token: mapped onto
/// the local server and fetched by the SDK's HTTP transfer with the header.
private struct AppModels: DownloadStrategy {
    let name = "myapp-models"
    let server: URL
    let token: String

    func canHandle(_ url: URL) -> Bool { url.scheme == "myapp-models" }
    var supportsResume: Bool { true }

    private func mapped(_ url: URL) -> URL { server.appendingPathComponent(url.path()) }
    private var http: HTTPDownloadStrategy { HTTPDownloadStrategy(headers: ["Authorization": "Bearer \(token)"]) }

    func size(of url: URL, configuration: DownloadConfiguration) async throws -> Int64? {
        try await http.size(of: mapped(url), configuration: configuration)
    }

    func fetch(_ request: DownloadRequest) async throws -> Int64 {
        try await http.fetch(request.redirected(to: mapped(request.url)))
    }
}

/// A strategy that writes half of a file, then fails: with an SDK error or any other.
private struct HalfThenFail: DownloadStrategy {
    struct Broken: Error {}
    let name: String
    let bytes: Data
    let sdkError: Bool

    func canHandle(_ url: URL) -> Bool { url.scheme == name }

    func fetch(_ request: DownloadRequest) async throws -> Int64 {
        try bytes.prefix(bytes.count / 2).write(to: request.destination)
        request.progress(Int64(bytes.count / 2), 0)
        if sdkError { throw SDKException(.downloadFailed, "the vault closed") }
        throw Broken()
    }
}

extension RealEngineTests {
    @Suite("Download strategies")
    struct DownloadStrategyTests {
        @Test("An app's own scheme, mapped to its server with a token, downloads, checks, installs and generates")
        func appScheme() async throws {
            try await withDownloadServer { server, sdk in
                let model = try #require(try DefaultModels.llm().localPath)
                let name = try serve(model, in: server)
                server.requireHeader("Authorization", value: "Bearer s3cret")
                let url = try #require(URL(string: "myapp-models://catalog/\(name)"))
                await expectCode(.invalidInput) {
                    try sdk.registerModel(id: "app-llm", name: "App", url: url, framework: .llamaCpp, category: .llm)
                }
                try sdk.registerDownloadStrategy(AppModels(server: server.baseURL, token: "s3cret"))
                await expectCode(.invalidInput) {
                    try sdk.registerDownloadStrategy(AppModels(server: server.baseURL, token: "again"))
                }
                #expect(sdk.downloadStrategies == ["myapp-models", "https"])
                try sdk.registerModel(
                    id: "app-llm",
                    name: "App",
                    url: url,
                    framework: .llamaCpp,
                    category: .llm,
                    sha256: try sha256sum(model)
                )
                let reports = await collect(try sdk.downloadModel("app-llm"))
                let last = try #require(reports.last)
                #expect(last.stage == .completed, "\(last.error.map { "\($0)" } ?? "")")
                #expect(reports.contains { $0.stage == .validating })
                #expect(server.requests.allSatisfy { $0.status != 401 }, "every request carried the token")
                try await sdk.loadModel("app-llm")
                let reply = try await sdk.generate("Hi", options: LLMGenerationOptions(maxTokens: 3, temperature: 0))
                #expect(reply.generatedTokens > 0)

                // Without the token the server refuses, and the failure names it.
                try sdk.registerModel(
                    id: "no-token",
                    name: "No token",
                    url: try #require(URL(string: "http://127.0.0.1:\(server.port)/\(name)")),
                    framework: .llamaCpp,
                    category: .llm
                )
                let refused = try #require(await collect(try sdk.downloadModel("no-token")).last)
                #expect(refused.error?.code == .downloadFailed)
                #expect(refused.error?.message.contains("401") == true, "\(refused.error.map { "\($0)" } ?? "")")
                try expectNoTrace(of: "no-token", framework: .llamaCpp, in: sdk)
            }
        }

        @Test("The HTTP strategy fetches an empty file and a small one, with infinite timeouts allowed")
        func emptyFileAndInfiniteTimeouts() async throws {
            try await withDownloadServer { server, _ in
                try Data().write(to: server.root.appendingPathComponent("empty.bin"))
                try Data("twelve bytes".utf8).write(to: server.root.appendingPathComponent("small.bin"))
                // The configuration allows infinite timeouts; libcurl gets them capped, not a trap.
                var configuration = DownloadConfiguration(connectTimeout: .infinity, stallTimeout: .infinity)
                configuration.reservedFreeBytes = 0
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "ra-get-\(UUID().uuidString)"
                )
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: folder) }
                let http = HTTPDownloadStrategy()
                for (name, expected) in [("empty.bin", Data()), ("small.bin", Data("twelve bytes".utf8))] {
                    let url = server.url(for: name)
                    #expect(try await http.size(of: url, configuration: configuration) == Int64(expected.count))
                    let destination = folder.appendingPathComponent(name)
                    let request = DownloadRequest(url: url, destination: destination, configuration: configuration)
                    #expect(try await http.fetch(request) == Int64(expected.count))
                    #expect(try Data(contentsOf: destination) == expected, "\(name)")
                }
            }
        }

        @Test("An https download follows https redirects but never one to http, and says which redirect it refused")
        func httpsNeverFollowedToHTTP() async throws {
            try await withDownloadServer { server, _ in
                try Data("plain".utf8).write(to: server.root.appendingPathComponent("plain.bin"))
                let target = server.url(for: "plain.bin")
                try await withTLSServer(redirectingTo: target) { base, authorities in
                    var configuration = DownloadConfiguration(maxRetries: 0, certificateAuthorities: authorities)
                    configuration.reservedFreeBytes = 0
                    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                        "ra-tls-\(UUID().uuidString)"
                    )
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    defer { try? FileManager.default.removeItem(at: folder) }
                    let http = HTTPDownloadStrategy()
                    func fetch(_ path: String) async throws -> Data {
                        let destination = folder.appendingPathComponent(UUID().uuidString)
                        let url = try #require(URL(string: base + path))
                        _ = try await http.fetch(
                            DownloadRequest(url: url, destination: destination, configuration: configuration)
                        )
                        return try Data(contentsOf: destination)
                    }
                    // The certificate is trusted and an https → https redirect is followed.
                    #expect(try await fetch("/hello") == Data("hello over tls".utf8))
                    #expect(try await fetch("/hop") == Data("hello over tls".utf8))
                    // https → http is refused, by HEAD and by GET, naming the redirect.
                    for attempt in ["HEAD", "GET"] {
                        do {
                            if attempt == "HEAD" {
                                let url = try #require(URL(string: base + "/downgrade"))
                                _ = try await http.size(of: url, configuration: configuration)
                            } else {
                                _ = try await fetch("/downgrade")
                            }
                            Issue.record("\(attempt): the redirect to http was followed")
                        } catch let error as SDKException {
                            #expect(error.code == .insecureRedirect, "\(attempt): \(error)")
                            #expect(error.message.contains(target.absoluteString), "\(attempt): \(error.message)")
                            #expect(error.message.contains(base + "/downgrade"), "\(attempt): \(error.message)")
                        }
                    }
                    #expect(server.requests.isEmpty, "the http server was never asked: \(server.requests)")
                }
            }
        }

        @Test("A strategy that fails half-way leaves nothing behind, whether it throws an SDK error or another")
        func failsHalfWay() async throws {
            try await withDownloadServer { _, sdk in
                let bytes = try Data(contentsOf: try #require(try DefaultModels.llm().localPath)).prefix(1 << 20)
                for (scheme, sdkError, says) in [("vault", true, "the vault closed"), ("crate", false, "crate")] {
                    try sdk.registerDownloadStrategy(HalfThenFail(name: scheme, bytes: Data(bytes), sdkError: sdkError))
                    let id = "half-\(scheme)"
                    try sdk.registerModel(
                        id: id,
                        name: id,
                        url: try #require(URL(string: "\(scheme)://bucket/model.gguf")),
                        framework: .llamaCpp,
                        category: .llm
                    )
                    let registryBefore = try sdk.model(id)
                    let last = try #require(await collect(try sdk.downloadModel(id)).last)
                    #expect(last.stage == .failed)
                    #expect(last.error?.code == .downloadFailed)
                    #expect(last.error?.message.contains(says) == true, "\(last.error.map { "\($0)" } ?? "")")
                    try expectNoTrace(of: id, framework: .llamaCpp, in: sdk)
                    #expect(try sdk.model(id) == registryBefore)
                }
            }
        }
    }
}
