import Foundation
import RealEngineTestSupport
import RunAnywhereLlamaCPP
import RunAnywhereTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

/// Every bad input gives an `SDKException` with the right code and leaves the registry
/// (and the model files) as they were.
@Suite("Bad inputs on the real engine", .serialized, .wholeMachine, .tags(.realEngine))
struct LlamaCPPBadInputTests {
    let id = DefaultModels.llmId

    /// Copies the first `bytes` bytes of the real GGUF (or all of it) into `dir`.
    private func copyOfModel(in dir: URL, name: String, bytes: Int? = nil) throws -> URL {
        let source = try #require(try DefaultModels.llm().localPath)
        let target = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        if let bytes {
            let handle = try FileHandle(forReadingFrom: source)
            defer { try? handle.close() }
            try (try handle.read(upToCount: bytes) ?? Data()).write(to: target)
        } else {
            try FileManager.default.copyItem(at: source, to: target)
        }
        return target
    }

    private func registryBytes(_ home: URL) -> Data? {
        try? Data(contentsOf: home.appendingPathComponent("registry.json"))
    }

    @Test("Generating before initialize fails with notInitialized")
    func generateBeforeInitialize() async {
        await RunAnywhere.reset()
        #expect(!RunAnywhere.isInitialized)
        await expectCode(.notInitialized) { try await RunAnywhere.generate("Hello") }
        await expectCode(.notInitialized) { try await RunAnywhere.loadModel(id) }
        await expectCode(.notInitialized) { try RunAnywhere.availableModels() }
    }

    @Test("Every call on a shut-down instance fails with notInitialized, and shutting down twice is harmless")
    func callsAfterShutdown() async throws {
        let sdk = try await withSDK { sdk in
            try await sdk.loadModel(id)
            await sdk.shutdown()
            return sdk
        }
        await sdk.shutdown()
        #expect(sdk.isShutDown)
        #expect(await sdk.currentLLMModel == nil)
        await expectCode(.notInitialized) { try await sdk.generate("Hello") }
        await expectCode(.notInitialized) { try await sdk.loadModel(id) }
        await expectCode(.notInitialized) { try sdk.availableModels() }
    }

    @Test("Generating with no model loaded fails with modelNotLoaded")
    func generateWithoutModel() async throws {
        try await withSDK { sdk in
            await expectCode(.modelNotLoaded) { try await sdk.generate("Hello") }
            await expectCode(.modelNotLoaded) { try await sdk.generateStream("Hello") }
        }
    }

    @Test("An unknown model id fails with modelNotFound")
    func unknownModel() async throws {
        try await withSDK { sdk in
            let home = sdk.paths.home
            let before = registryBytes(home)
            await expectCode(.modelNotFound) { try await sdk.loadModel("no-such-model") }
            await expectCode(.modelNotFound) { try await sdk.removeModel("no-such-model") }
            #expect(registryBytes(home) == before)
        }
    }

    @Test("An empty prompt fails with emptyPrompt")
    func emptyPrompt() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(id)
            await expectCode(.emptyPrompt) { try await sdk.generate("") }
            await expectCode(.emptyPrompt) { try await sdk.generate("  \n\t ") }
            await expectCode(.emptyPrompt) { try await sdk.chat([]) }
            await expectCode(.invalidInput) {
                try await sdk.generate("Hi", options: LLMGenerationOptions(maxTokens: 0))
            }
            await expectCode(.invalidInput) {
                try await sdk.generate("Hi", options: LLMGenerationOptions(temperature: -1))
            }
            await expectCode(.invalidInput) {
                try await sdk.generate("Hi", options: LLMGenerationOptions(promptThreads: 0))
            }
        }
    }

    @Test("A prompt beyond the context is refused, or truncated when asked")
    func promptBeyondContext() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(id, contextLength: 128)
            // llama.cpp rounds small contexts up to 256 tokens; this prompt is ~800.
            let long = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 80)
            await expectCode(.contextLengthExceeded) { try await sdk.generate(long) }
            var options = LLMGenerationOptions(maxTokens: 8, temperature: 0)
            options.truncatePromptToFit = true
            let r = try await sdk.generate(long, options: options)
            #expect(r.promptTokens < 300)
            #expect(r.generatedTokens > 0)
        }
    }

    @Test("Importing a missing file fails with modelFileNotFound and registers nothing")
    func missingFile() async throws {
        try await withSDK(models: []) { sdk in
            let home = sdk.paths.home
            let before = try sdk.availableModels()
            await expectCode(.modelFileNotFound) {
                try sdk.importModel(
                    from: home.appendingPathComponent("nope.gguf"),
                    id: "nope",
                    category: .llm,
                    framework: .llamaCpp
                )
            }
            #expect(try sdk.availableModels() == before)
        }
    }

    @Test("A registered model whose file vanished fails to load with modelFileNotFound")
    func vanishedFile() async throws {
        try await withSDK(models: []) { sdk in
            let home = sdk.paths.home
            let file = try copyOfModel(in: home.appendingPathComponent("outside"), name: "m.gguf")
            try sdk.importModel(from: file, id: "vanishing", category: .llm, framework: .llamaCpp)
            let stored = try #require(try sdk.model("vanishing").localPath)
            try FileManager.default.removeItem(at: stored)
            await expectCode(.modelFileNotFound) { try await sdk.loadModel("vanishing") }
            #expect(try sdk.model("vanishing").id == "vanishing")
        }
    }

    @Test("A truncated GGUF is refused at import and at load")
    func truncatedGGUF() async throws {
        try await withSDK(models: []) { sdk in
            let home = sdk.paths.home
            let size = try #require(try DefaultModels.llm().sizeBytes)
            let truncated = try copyOfModel(
                in: home.appendingPathComponent("outside"),
                name: "half.gguf",
                bytes: Int(size / 2)
            )
            let before = registryBytes(home)
            await expectCode(.modelCorrupted) {
                try sdk.importModel(from: truncated, id: "half", category: .llm, framework: .llamaCpp)
            }
            #expect(registryBytes(home) == before)
            #expect(
                !FileManager.default.fileExists(atPath: home.appendingPathComponent("models/llamacpp/half").path)
            )
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("tmp").path).isEmpty
            )
            #expect(FileManager.default.fileExists(atPath: truncated.path), "the source must stay")

            // Registered by reference, the engine itself meets the truncated file.
            try sdk.registerModel(
                ModelInfo(
                    id: "half",
                    name: "half",
                    category: .llm,
                    format: .gguf,
                    framework: .llamaCpp,
                    localPath: truncated
                )
            )
            await expectCode(.modelLoadFailed) { try await sdk.loadModel("half") }
            #expect(await sdk.currentLLMModel == nil)
        }
    }

    @Test("A file with the wrong magic is refused with invalidModelFormat")
    func wrongMagic() async throws {
        try await withSDK(models: []) { sdk in
            let home = sdk.paths.home
            let dir = home.appendingPathComponent("outside")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let fake = dir.appendingPathComponent("fake.gguf")
            try Data("GGML this is not a gguf model at all".utf8).write(to: fake)
            let before = registryBytes(home)
            await expectCode(.invalidModelFormat) {
                try sdk.importModel(from: fake, id: "fake", category: .llm, framework: .llamaCpp, mode: .move)
            }
            #expect(registryBytes(home) == before)
            #expect(FileManager.default.fileExists(atPath: fake.path), "a refused move leaves the source in place")
        }
    }

    @Test("A corrupt registry gives a clear error and loses no model file")
    func corruptRegistry() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        await RunAnywhere.reset()
        LlamaCPP.register()
        try RunAnywhere.initialize(storageDirectory: home)
        let file = try copyOfModel(in: home.appendingPathComponent("outside"), name: "m.gguf")
        let model = try RunAnywhere.importModel(from: file, id: "kept", category: .llm, framework: .llamaCpp)
        let stored = try #require(model.localPath)
        await RunAnywhere.reset()

        let registry = home.appendingPathComponent("registry.json")
        let garbage = Data("{ \"version\": 1, \"models\": [ {\"id\": ".utf8)
        try garbage.write(to: registry)
        do {
            try RunAnywhere.initialize(storageDirectory: home)
            Issue.record("initialize accepted a corrupt registry")
        } catch {
            #expect(error.code == .registryCorrupted)
            #expect(error.message.contains(registry.path))
            #expect(error.recoverySuggestion != nil)
        }
        #expect(!RunAnywhere.isInitialized)
        #expect(
            try Data(contentsOf: registry) == garbage,
            "the corrupt file is kept for inspection, not overwritten"
        )
        #expect(FileManager.default.fileExists(atPath: stored.path), "model files are not lost")

        // Once the file is moved aside, discovery brings the model back from disk.
        try FileManager.default.moveItem(at: registry, to: home.appendingPathComponent("registry.json.bad"))
        try RunAnywhere.initialize(storageDirectory: home)
        let recovered = try RunAnywhere.model("kept")
        #expect(recovered.localPath == stored)
        #expect(recovered.category == .llm)
        try await RunAnywhere.loadModel("kept")
        let r = try await RunAnywhere.generate("Hi", options: LLMGenerationOptions(maxTokens: 4, temperature: 0))
        #expect(r.generatedTokens > 0)
        await RunAnywhere.reset()
    }

    @Test("Importing copies into the store, validates, and the model generates")
    func importAndGenerate() async throws {
        try await withSDK(models: []) { sdk in
            let home = sdk.paths.home
            let file = try copyOfModel(in: home.appendingPathComponent("outside"), name: "SmolLM2.gguf")
            let model = try sdk.importModel(
                from: file,
                id: "imported",
                category: .llm,
                framework: .llamaCpp,
                mode: .move
            )
            #expect(!FileManager.default.fileExists(atPath: file.path))
            #expect(
                model.localPath?.path.hasPrefix(home.appendingPathComponent("models/llamacpp/imported").path)
                    == true
            )
            #expect(model.contextLength == 8192)
            #expect(model.hasChatTemplate == true)
            await expectCode(.modelAlreadyExists) {
                try sdk.importModel(
                    from: try #require(model.localPath),
                    id: "imported",
                    category: .llm,
                    framework: .llamaCpp
                )
            }
            try await sdk.loadModel("imported")
            let r = try await sdk.generate("Say hello.", options: greedy)
            #expect(!r.text.isEmpty)
            try await sdk.removeModel("imported")
            #expect(await sdk.currentLLMModel == nil)
            #expect(
                !FileManager.default.fileExists(
                    atPath: home.appendingPathComponent("models/llamacpp/imported").path
                )
            )
        }
    }
}
