import Foundation
import Greeter
import RunAnywhere
import RunAnywhereTesting
import Testing

@Suite("An app tested on the deterministic backend")
struct GreeterTests {
    @Test("The snippet from the README runs as written")
    func readmeSnippet() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: home) }
        let sdk = try RunAnywhereSDK(home: home, environment: .development, modules: [DeterministicBackend()])
        try registerDeterministicModels(in: sdk)
        try await sdk.loadModel("test-llm")
        let a = try await sdk.generate(
            "Hello",
            options: LLMGenerationOptions(maxTokens: 12, temperature: 0.7, seed: 42)
        )
        let b = try await sdk.generate(
            "Hello",
            options: LLMGenerationOptions(maxTokens: 12, temperature: 0.7, seed: 42)
        )
        #expect(a.text == b.text && a.generatedTokens <= 12)
        try await sdk.loadSTTModel("test-stt")
        let heard = try await sdk.transcribe(DeterministicBackend.speech(for: "turn on the lights"))
        #expect(heard.text == "turn on the lights")
        await sdk.shutdown()
    }

    @Test("The greeter hears the name and answers the same way every time")
    func greeterIsDeterministic() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: home) }
        let sdk = try RunAnywhereSDK(home: home, modules: [DeterministicBackend()])
        try registerDeterministicModels(in: sdk)
        try await sdk.loadModel("test-llm")
        try await sdk.loadSTTModel("test-stt")
        let greeter = Greeter(sdk: sdk)
        let first = try await greeter.greet(DeterministicBackend.speech(for: "Ada"))
        let second = try await greeter.greet(DeterministicBackend.speech(for: "Ada"))
        #expect(first.heard == "Ada")
        #expect(first.reply == second.reply)
        #expect(!first.reply.isEmpty)
        await sdk.shutdown()
    }

    @Test("A slow model is slow, so the app's timeout can be tested")
    func slowModel() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: home) }
        let slow = DeterministicBackend(timing: .init(firstTokenDelay: .milliseconds(200)))
        let sdk = try RunAnywhereSDK(home: home, modules: [slow])
        try registerDeterministicModels(in: sdk)
        try await sdk.loadModel("test-llm")
        let result = try await sdk.generate("Hello", options: LLMGenerationOptions(maxTokens: 4))
        #expect(result.timeToFirstTokenMs >= 200)
        await sdk.shutdown()
    }
}
