import Foundation
import Testing

@_spi(Backend) @testable import RunAnywhere

/// Registry behaviour on synthetic files; the real GGUF is exercised in the engine tests.
@Suite("Model registry")
struct ModelRegistryTests {
    /// What the llama.cpp module registers: GGUF files of its framework are checked at import.
    static let inspectors = ModelFileInspectors([GGUFFile.inspector(for: .llamaCpp)])

    private func makeHome() -> SDKPaths {
        SDKPaths(home: FileManager.default.temporaryDirectory.appendingPathComponent("ra-unit-\(UUID().uuidString)"))
    }

    /// A minimal valid GGUF v3: one metadata string, one 64-value F32 tensor.
    static func tinyGGUF(tensorBytes: Int = 256) -> Data {
        gguf(tensorBytes: tensorBytes)
    }

    /// A GGUF v3 with one metadata string and the tensor "t" as described, for hostile headers.
    static func gguf(
        tensorCount: UInt64 = 1,
        dimensions: [UInt64] = [64],
        type: UInt32 = 0,
        offset: UInt64 = 0,
        alignment: UInt32? = nil,
        tensorBytes: Int = 256
    ) -> Data {
        var d = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func str(_ s: String) {
            u64(UInt64(s.utf8.count))
            d.append(contentsOf: Array(s.utf8))
        }
        d.append(contentsOf: Array("GGUF".utf8))
        u32(3)
        u64(tensorCount)
        u64(alignment == nil ? 2 : 3)
        str("general.architecture")
        u32(8)
        str("tiny")
        str("tiny.context_length")
        u32(4)
        u32(512)
        if let alignment {
            str("general.alignment")
            u32(4)
            u32(alignment)
        }
        str("t")
        u32(UInt32(dimensions.count))
        for dimension in dimensions { u64(dimension) }
        u32(type)
        u64(offset)
        // Data starts where the reader expects it (hostile alignments are refused before that).
        let padding = alignment.flatMap { [32, 64].contains($0) ? Int($0) : nil } ?? 32
        while d.count % padding != 0 { d.append(0) }
        d.append(Data(repeating: 1, count: tensorBytes))
        return d
    }

    private func writeFile(_ data: Data, named name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ra-src-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    @Test("A GGUF header is read and a truncated one is refused")
    func ggufHeader() throws {
        let good = try writeFile(Self.tinyGGUF(), named: "tiny.gguf")
        let header = try GGUFFile(contentsOf: good)
        #expect(header.architecture == "tiny")
        #expect(header.contextLength == 512)
        #expect(header.requiredSize == header.fileSize)
        let short = try writeFile(Self.tinyGGUF(tensorBytes: 100), named: "short.gguf")
        for tiny in [Data("GG".utf8), Data(), Data("GGML and more".utf8)] {
            let file = try writeFile(tiny, named: "tiny.gguf")
            do {
                _ = try GGUFFile(contentsOf: file)
                Issue.record("accepted \(tiny.count) bytes")
            } catch { #expect(error.code == .invalidModelFormat) }
        }
        let headerOnly = try writeFile(Self.tinyGGUF().prefix(40), named: "cut.gguf")
        for file in [short, headerOnly] {
            do {
                _ = try GGUFFile(contentsOf: file)
                Issue.record("accepted \(file.lastPathComponent)")
            } catch { #expect(error.code == .modelCorrupted) }
        }
    }

    @Test("A hostile GGUF header (huge offsets, sizes, counts or alignment) is a typed error, never a crash")
    func hostileGGUFHeaders() throws {
        let hostile: [(String, Data)] = [
            ("offset near 2^64", Self.gguf(dimensions: [1], offset: UInt64.max - 4)),
            ("unknown type, offset near 2^64", Self.gguf(type: 99, offset: UInt64.max)),
            ("2^63 elements", Self.gguf(dimensions: [2_147_483_647, 2_147_483_647, 2])),
            ("elements overflowing 64 bits", Self.gguf(dimensions: [2_147_483_647, 2_147_483_647, 2_147_483_647])),
            ("2^64 - 1 tensors", Self.gguf(tensorCount: UInt64.max)),
            ("more tensors than bytes", Self.gguf(tensorCount: 1_000)),
            ("alignment 3", Self.gguf(alignment: 3)),
            ("alignment 2^31", Self.gguf(alignment: 1 << 31)),
            ("alignment 0", Self.gguf(alignment: 0)),
        ]
        for (name, data) in hostile {
            let file = try writeFile(data, named: "hostile.gguf")
            let error = #expect(throws: SDKException.self, "\(name)") { try GGUFFile(contentsOf: file) }
            #expect(error?.code == .modelCorrupted, "\(name): \(String(describing: error))")
        }
        // A sound file with its own alignment reads, and its tensor comes back by name and shape only.
        let file = try writeFile(Self.gguf(alignment: 64), named: "aligned.gguf")
        let header = try GGUFFile(contentsOf: file)
        #expect(try header.floats("t", dimensions: [64]).count == 64)
        for (name, dimensions) in [("t", [32, 2]), ("missing", [64])] {
            let error = #expect(throws: SDKException.self) { try header.floats(name, dimensions: dimensions) }
            #expect(error?.code == .modelCorrupted)
        }
    }

    @Test("Imports persist across reloads and keep a sidecar")
    func persistence() throws {
        let paths = makeHome()
        defer { try? FileManager.default.removeItem(at: paths.home) }
        let registry = ModelRegistry(paths: paths, inspectors: Self.inspectors)
        try registry.load()
        let source = try writeFile(Self.tinyGGUF(), named: "tiny.gguf")
        let model = try registry.importModel(
            from: source,
            id: "tiny",
            name: nil,
            category: .llm,
            framework: .llamaCpp,
            mode: .copy
        )
        #expect(model.contextLength == 512)
        #expect(FileManager.default.fileExists(atPath: source.path))
        #expect(
            FileManager.default.fileExists(
                atPath: paths.modelDirectory(framework: .llamaCpp, id: "tiny")
                    .appendingPathComponent(ModelRegistry.sidecarName).path
            )
        )

        let reloaded = ModelRegistry(paths: paths, inspectors: Self.inspectors)
        try reloaded.load()
        #expect(try reloaded.get("tiny").localPath == model.localPath)
        #expect(reloaded.models(category: .llm).map(\.id) == ["tiny"])
        #expect(reloaded.models(category: .speechRecognition).isEmpty)
        #expect(reloaded.models(framework: .llamaCpp).count == 1)
    }

    @Test("Model files dropped into the store are discovered at load")
    func discovery() throws {
        let paths = makeHome()
        defer { try? FileManager.default.removeItem(at: paths.home) }
        let dir = paths.modelDirectory(framework: .llamaCpp, id: "dropped")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Self.tinyGGUF().write(to: dir.appendingPathComponent("weights.gguf"))
        let registry = ModelRegistry(paths: paths, inspectors: Self.inspectors)
        try registry.load()
        let found = try registry.get("dropped")
        #expect(found.category == .llm)
        #expect(found.contextLength == 512)
        #expect(FileManager.default.fileExists(atPath: paths.registryFile.path), "discovery is persisted")
    }

    @Test("Bad ids and duplicates are refused without touching the index")
    func badIds() throws {
        let paths = makeHome()
        defer { try? FileManager.default.removeItem(at: paths.home) }
        let registry = ModelRegistry(paths: paths, inspectors: Self.inspectors)
        try registry.load()
        let source = try writeFile(Self.tinyGGUF(), named: "tiny.gguf")
        for bad in ["", "Upper", "a/b", "../x", ".hidden", String(repeating: "a", count: 129)] {
            do {
                _ = try registry.importModel(
                    from: source,
                    id: bad,
                    name: nil,
                    category: .llm,
                    framework: .llamaCpp,
                    mode: .copy
                )
                Issue.record("accepted id '\(bad)'")
            } catch { #expect(error.code == .invalidModelId) }
        }
        _ = try registry.importModel(
            from: source,
            id: "tiny",
            name: nil,
            category: .llm,
            framework: .llamaCpp,
            mode: .copy
        )
        let index = try Data(contentsOf: paths.registryFile)
        do {
            try registry.register(
                ModelInfo(id: "tiny", name: "dup", category: .llm, format: .gguf, framework: .llamaCpp)
            )
            Issue.record("duplicate accepted")
        } catch { #expect(error.code == .modelAlreadyExists) }
        #expect(try Data(contentsOf: paths.registryFile) == index)
    }

    @Test("Removing a model deletes its stored files but not files registered from elsewhere")
    func removal() throws {
        let paths = makeHome()
        defer { try? FileManager.default.removeItem(at: paths.home) }
        let registry = ModelRegistry(paths: paths, inspectors: Self.inspectors)
        try registry.load()
        let source = try writeFile(Self.tinyGGUF(), named: "tiny.gguf")
        let stored = try registry.importModel(
            from: source,
            id: "stored",
            name: nil,
            category: .llm,
            framework: .llamaCpp,
            mode: .copy
        )
        try registry.register(
            ModelInfo(
                id: "external",
                name: "external",
                category: .llm,
                format: .gguf,
                framework: .llamaCpp,
                localPath: source
            )
        )
        try registry.remove("stored")
        try registry.remove("external")
        #expect(!FileManager.default.fileExists(atPath: try #require(stored.localPath).path))
        #expect(FileManager.default.fileExists(atPath: source.path))
        #expect(registry.list().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: paths.tempDirectory.path).isEmpty)
    }

    @Test("A downloaded archive model moved with its home is rediscovered at its nested primary file")
    func discoveryOfNestedPrimaryFile() throws {
        let paths = makeHome()
        defer { try? FileManager.default.removeItem(at: paths.home) }
        let dir = paths.modelDirectory(framework: .sherpaOnnx, id: "voice")
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("joe"),
            withIntermediateDirectories: true
        )
        try Data("onnx".utf8).write(to: dir.appendingPathComponent("joe/model.onnx"))
        let archive = try ModelArchive(
            url: URL(string: "https://example.com/joe.tar.bz2")!,
            primaryFile: "joe/model.onnx"
        )
        let old = ModelInfo(
            id: "voice",
            name: "Joe",
            category: .speechSynthesis,
            format: .onnx,
            framework: .sherpaOnnx,
            localPath: URL(fileURLWithPath: "/old/home/models/sherpa/voice/joe/model.onnx"),
            artifact: .archive(archive)
        )
        try ModelRegistry.encoder.encode(old).write(to: dir.appendingPathComponent(ModelRegistry.sidecarName))
        let registry = ModelRegistry(paths: paths, inspectors: Self.inspectors)
        try registry.load()
        #expect(try registry.get("voice").localPath == dir.appendingPathComponent("joe/model.onnx"))
        #expect(try registry.get("voice").isDownloadable)
    }

    @Test("At load, an entry whose file vanished is kept but no longer downloaded")
    func vanishedFilesAreForgotten() throws {
        let paths = makeHome()
        defer { try? FileManager.default.removeItem(at: paths.home) }
        let file = try writeFile(Self.tinyGGUF(), named: "gone.gguf")
        let registry = ModelRegistry(paths: paths, inspectors: Self.inspectors)
        try registry.load()
        try registry.register(
            ModelInfo(
                id: "gone",
                name: "Gone",
                category: .llm,
                format: .gguf,
                framework: .llamaCpp,
                localPath: file
            )
        )
        try FileManager.default.removeItem(at: file)
        let reloaded = ModelRegistry(paths: paths, inspectors: Self.inspectors)
        try reloaded.load()
        #expect(try !reloaded.get("gone").isDownloaded)
        let again = ModelRegistry(paths: paths, inspectors: Self.inspectors)
        try again.load()
        #expect(try again.get("gone").localPath == nil, "the reconciliation was saved")
    }

    @Test("An index entry whose id or framework would name a folder outside the store is refused, and the file is kept")
    func unsafeEntriesAreRefused() throws {
        for (id, framework) in [("cache", ".."), ("ok", "../../etc"), ("../x", "llamacpp"), ("ok", "a/b")] {
            let paths = makeHome()
            defer { try? FileManager.default.removeItem(at: paths.home) }
            try FileManager.default.createDirectory(at: paths.home, withIntermediateDirectories: true)
            let index = Data(
                #"{"version":1,"models":[{"id":"\#(id)","name":"x","category":"llm","format":"gguf","framework":"\#(framework)","registeredAt":"2026-01-01T00:00:00Z"}]}"#
                    .utf8
            )
            try index.write(to: paths.registryFile)
            do {
                try ModelRegistry(paths: paths, inspectors: Self.inspectors).load()
                Issue.record("accepted id '\(id)' with framework '\(framework)'")
            } catch {
                #expect(error.code == .registryCorrupted)
            }
            #expect(try Data(contentsOf: paths.registryFile) == index, "the file is kept for inspection")
        }
    }

    @Test("A sidecar that names another framework than its folder is not trusted at discovery")
    func sidecarMustMatchItsFolder() throws {
        let paths = makeHome()
        defer { try? FileManager.default.removeItem(at: paths.home) }
        let dir = paths.modelDirectory(framework: .sherpaOnnx, id: "voice")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data("onnx".utf8).write(to: dir.appendingPathComponent("model.onnx"))
        let lying = ModelInfo(
            id: "voice",
            name: "Joe",
            category: .speechSynthesis,
            format: .onnx,
            framework: InferenceFramework(".."),
            localPath: dir.appendingPathComponent("model.onnx")
        )
        try ModelRegistry.encoder.encode(lying).write(to: dir.appendingPathComponent(ModelRegistry.sidecarName))
        let registry = ModelRegistry(paths: paths, inspectors: Self.inspectors)
        try registry.load()
        #expect(registry.list().isEmpty)
    }
}
