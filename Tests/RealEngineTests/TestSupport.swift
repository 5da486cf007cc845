import Foundation
import Testing
@testable import RunAnywhere
import RunAnywhereLlamaCPP
import RunAnywhereSherpa
import RunAnywhereSystemVoice
import RunAnywhereWhisperCPP

/// Every test that drives the process-wide `RunAnywhere` facade lives under this suite,
/// which runs its children one at a time.
@Suite("Real engine", .serialized)
struct RealEngineTests {}

/// The default models installed by scripts/bootstrap, read from the default SDK store.
enum DefaultModels {
    static let llmId = "smollm2-135m-instruct"
    static let sttId = "whisper-tiny-en"
    static let ttsId = "piper-en-us-joe-medium"
    static let vadId = "silero-vad"
    static let speech = [sttId, ttsId, vadId]

    static func llm() throws -> ModelInfo { try model(llmId) }

    static func model(_ id: String) throws -> ModelInfo {
        let registry = ModelRegistry(paths: SDKPaths(home: SDKPaths.defaultHome()))
        try registry.load()
        guard let model = try? registry.get(id), let path = model.localPath,
              FileManager.default.fileExists(atPath: path.path) else {
            Issue.record("The default model \(id) is not installed: run `make test` (it runs scripts/bootstrap)")
            throw SDKException(.modelNotFound, "default model \(id) missing")
        }
        return model
    }
}

/// A temporary SDK home, initialized through the public facade with every backend, and
/// the given default models registered by reference (no copy). Always resets the SDK and
/// deletes the home.
func withSDK<T>(models: [String] = [DefaultModels.llmId],
                _ body: (URL) async throws -> T) async throws -> T {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-test-\(UUID().uuidString)")
    await RunAnywhere.reset()
    LlamaCPP.register()
    WhisperCPP.register()
    Sherpa.register()
    SystemVoice.register()
    RunAnywhere.setLogLevel(.error)
    defer { try? FileManager.default.removeItem(at: home) }
    do {
        try RunAnywhere.initialize(environment: .development, storageDirectory: home)
        for id in models {
            var model = try DefaultModels.model(id)
            model.lastUsedAt = nil
            try RunAnywhere.registerModel(model)
        }
        let result = try await body(home)
        await RunAnywhere.reset()
        return result
    } catch {
        await RunAnywhere.reset()
        throw error
    }
}

/// Expects `body` to throw an `SDKException` with `code`.
func expectSDKError<T>(_ code: SDKException.Code, sourceLocation: SourceLocation = #_sourceLocation,
                       _ body: () async throws -> T) async {
    do {
        _ = try await body()
        Issue.record("Expected SDKException \(code.rawValue), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as SDKException {
        #expect(error.code == code, "got \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("Expected SDKException \(code.rawValue), got \(error)", sourceLocation: sourceLocation)
    }
}

/// Options for deterministic runs.
let greedy = LLMGenerationOptions(maxTokens: 32, temperature: 0, repetitionPenalty: 1)
