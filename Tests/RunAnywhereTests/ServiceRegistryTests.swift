import Foundation
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Service registry")
struct ServiceRegistryTests {
    private let gguf = ModelInfo(id: "m", name: "m", category: .llm, format: .gguf, framework: .llamaCpp)

    private func factory(_ label: String) -> LLMServiceFactory {
        { _, _ in throw SDKException(.backendError, label) }
    }

    @Test("The highest-priority provider that can handle the model wins")
    func priorityWins() throws {
        let registry = ServiceRegistry()
        registry.registerLLM(name: "low", priority: 10, canHandle: { _ in true }, factory: factory("low"))
        registry.registerLLM(name: "high", priority: 200, canHandle: { _ in true }, factory: factory("high"))
        registry.registerLLM(name: "picky", priority: 500, canHandle: { $0.format == .onnx }, factory: factory("picky"))
        #expect(try registry.llmProvider(for: gguf).name == "high")
        #expect(registry.llmProviderNames == ["picky", "high", "low"])
    }

    @Test("Equal priorities keep registration order")
    func tiesKeepOrder() throws {
        let registry = ServiceRegistry()
        registry.registerLLM(name: "first", canHandle: { _ in true }, factory: factory("first"))
        registry.registerLLM(name: "second", canHandle: { _ in true }, factory: factory("second"))
        #expect(try registry.llmProvider(for: gguf).name == "first")
    }

    @Test("No matching provider gives noBackendForModel")
    func noMatch() {
        let registry = ServiceRegistry()
        registry.registerLLM(name: "onnx-only", canHandle: { $0.format == .onnx }, factory: factory("x"))
        do {
            _ = try registry.llmProvider(for: gguf)
            Issue.record("a provider was found")
        } catch {
            #expect(error.code == .noBackendForModel)
            #expect(error.recoverySuggestion?.contains("onnx-only") == true)
        }
    }
}
