import Foundation
import RealEngineTestSupport
import RunAnywhereLlamaCPP
import RunAnywhereTestSupport
import Synchronization
import Testing

@_spi(Backend) @testable import RunAnywhere

/// Continuous batching on the real engine: generations in several slots decode together.
@Suite("Real llama.cpp continuous batching", .serialized, .wholeMachine, .tags(.realEngine))
struct LlamaCPPBatchingTests {
    let id = DefaultModels.llmId
    let prompts = [
        "List three fruits.",
        "Name a colour of the sky.",
        "Write one sentence about dogs.",
        "What is two plus two?",
        "Say hello in French.",
        "Describe rain in five words.",
    ]
    let options40 = LLMGenerationOptions(maxTokens: 40, temperature: 0, repetitionPenalty: 1)

    @Test("Concurrent greedy generations in four slots give each prompt the text it gets alone")
    func concurrentMatchesSolo() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(id, contextLength: 512, slots: 4)
            var solo: [String] = []
            for prompt in prompts {
                solo.append(try await sdk.generate(prompt, options: options40).text)
            }
            let options = options40
            let together = try await withThrowingTaskGroup(of: (Int, LLMGenerationResult).self) { group in
                for (index, prompt) in prompts.enumerated() {
                    group.addTask { (index, try await sdk.generate(prompt, options: options)) }
                }
                var results = [LLMGenerationResult?](repeating: nil, count: prompts.count)
                for try await (index, result) in group { results[index] = result }
                return results.map { $0! }
            }
            for (index, result) in together.enumerated() {
                #expect(!result.text.isEmpty)
                #expect(result.text == solo[index], "prompt \(index): '\(result.text)' vs '\(solo[index])'")
            }
        }
    }

    @Test("A cancelled stream ends while other slots keep generating to completion")
    func cancelOneOfMany() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(id, contextLength: 512, slots: 3)
            let long = LLMGenerationOptions(maxTokens: 200, temperature: 0, ignoreEndOfSequence: true)
            async let first = sdk.generate("Count from one to one hundred.", options: long)
            async let second = sdk.generate("Tell me a long story.", options: long)
            var received = 0
            var final: LLMGenerationResult?
            let stream = try await sdk.generateStream("Write a poem about the sea.", options: long)
            for try await event in stream {
                if case .token = event { received += 1 }
                if received == 5 { break }
                if case .completed(let result) = event { final = result }
            }
            #expect(final == nil)
            let results = try await [first, second]
            for result in results {
                #expect(result.generatedTokens == 200)
                #expect(result.finishReason == .length)
            }
        }
    }

    @Test("More generations than slots wait their turn and all complete")
    func queueBeyondSlots() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(id, contextLength: 256, slots: 2)
            let options = LLMGenerationOptions(maxTokens: 12, temperature: 0.7, seed: 7)
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<7 {
                    let prompt = prompts[index % prompts.count]
                    group.addTask { try await sdk.generate(prompt, options: options).generatedTokens }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(counts.count == 7)
            #expect(counts.allSatisfy { $0 > 0 })
        }
    }

    @Test("Slots out of range are refused before loading")
    func badSlotCount() async throws {
        try await withSDK { sdk in
            for slots in [0, -1, LLMLoadConfiguration.maximumSlots + 1] {
                await expectCode(.invalidInput) { try await sdk.loadModel(id, slots: slots) }
            }
            #expect(await sdk.currentLLMModel == nil)
        }
    }
}
