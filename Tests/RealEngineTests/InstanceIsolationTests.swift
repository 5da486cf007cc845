import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

extension RealEngineTests {
    @Suite("SDK instances")
    struct InstanceIsolationTests {
        @Test("Two SDK instances share nothing: models, loads, events and generations stay apart")
        func instancesShareNothing() async throws {
            try await withSDK { first in
                try await withSDK(models: []) { second in
                    #expect(first.paths.home != second.paths.home)
                    #expect(try first.availableModels().map(\.id) == [DefaultModels.llmId])
                    #expect(try second.availableModels().isEmpty)
                    var llm = try DefaultModels.llm()
                    llm.id = "second-llm"
                    try second.registerModel(llm)
                    #expect(
                        try first.availableModels().map(\.id) == [DefaultModels.llmId],
                        "the other registry is untouched"
                    )

                    let firstEvents = first.events.events(for: .llm)
                    try await first.loadModel(DefaultModels.llmId)
                    try await second.loadModel("second-llm")
                    let options = LLMGenerationOptions(maxTokens: 12, temperature: 0, repetitionPenalty: 1)
                    async let a = first.generate("Name a colour.", options: options)
                    async let b = second.generate("Name a colour.", options: options)
                    let (ra, rb) = try await (a, b)
                    #expect(ra.modelId == DefaultModels.llmId && rb.modelId == "second-llm")
                    #expect(ra.text == rb.text, "the same model and greedy options give the same text in both")

                    try await second.unloadModel()
                    #expect(await second.currentLLMModel == nil)
                    #expect(
                        await first.currentLLMModel?.id == DefaultModels.llmId,
                        "unloading one leaves the other loaded"
                    )
                    await second.shutdown()
                    let again = try await first.generate("Name a colour.", options: options)
                    #expect(again.text == ra.text, "shutting one down leaves the other working")

                    var kinds: [String] = []
                    for await event in firstEvents {
                        kinds.append(event.kind.name)
                        if kinds.filter({ $0 == "generation_completed" }).count == 2 { break }
                    }
                    #expect(
                        kinds == [
                            "generation_started", "generation_completed", "generation_started", "generation_completed",
                        ],
                        "the first instance's bus carries only its own generations"
                    )
                }
            }
        }
    }
}
