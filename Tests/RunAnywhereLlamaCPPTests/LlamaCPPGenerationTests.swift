import Foundation
import RealEngineTestSupport
import RunAnywhereLlamaCPP
import RunAnywhereTestSupport
import Synchronization
import Testing

@_spi(Backend) @testable import RunAnywhere

/// Text generation on the real llama.cpp engine with the default SmolLM2 model.
///
/// Serialized: every test drives the process-wide `RunAnywhere` facade.
@Suite("Real llama.cpp generation", .serialized, .wholeMachine, .tags(.realEngine))
struct LlamaCPPGenerationTests {
    let id = DefaultModels.llmId

    @Test("Greedy output is identical across two runs")
    func greedyIsDeterministic() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(id)
            let first = try await sdk.generate("List three fruits.", options: greedy)
            let second = try await sdk.generate("List three fruits.", options: greedy)
            #expect(!first.text.isEmpty)
            #expect(first.text == second.text)
            #expect(first.generatedTokens == second.generatedTokens)
        }
    }

    @Test("A prompt evaluated on two threads and a reply generated on one give the one-thread greedy reply")
    func promptThreadsKeepTheReply() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(id)
            var single = greedy
            single.threads = 1
            single.reusePromptCache = false
            var split = single
            split.promptThreads = 2
            let question = "Explain in two sentences why the sky is blue."
            let reference = try await sdk.generate(question, options: single)
            let result = try await sdk.generate(question, options: split)
            #expect(!reference.text.isEmpty)
            #expect(result.text == reference.text)
            #expect(result.promptTokens == reference.promptTokens)
        }
    }

    @Test("Concatenated stream tokens equal the non-streaming text")
    func streamMatchesGenerate() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(id)
            let options = LLMGenerationOptions(maxTokens: 48, temperature: 0, repetitionPenalty: 1)
            let whole = try await sdk.generate("Describe the sea in one sentence.", options: options)
            var streamed = ""
            var pieces = 0
            var final: LLMGenerationResult?
            for try await event in try await sdk.generateStream(
                "Describe the sea in one sentence.",
                options: options
            ) {
                switch event {
                case .token(let text, let thinking):
                    #expect(!thinking)
                    streamed += text
                    pieces += 1
                case .completed(let result): final = result
                }
            }
            #expect(streamed == whole.text)
            #expect(final?.text == whole.text)
            #expect(pieces > 3, "tokens should arrive one by one, got \(pieces) pieces")
        }
    }

    @Test("Cancelling mid-stream ends within one token with a cancelled finish reason")
    func cancelMidStream() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(id)
            let options = LLMGenerationOptions(
                maxTokens: 400,
                temperature: 0,
                repetitionPenalty: 1,
                ignoreEndOfSequence: true
            )
            var seen = 0
            var afterCancel = 0
            var final: LLMGenerationResult?
            for try await event in try await sdk.generateStream(
                "Write a long story about a dragon.",
                options: options
            ) {
                switch event {
                case .token:
                    seen += 1
                    if seen > 5 { afterCancel += 1 }
                    if seen == 5 {
                        await sdk.cancelGeneration()
                    }
                case .completed(let result):
                    final = result
                }
            }
            let result = try #require(final)
            #expect(result.finishReason == .cancelled)
            // Cancellation is honoured before the next token: at most one more arrives.
            #expect(afterCancel <= 1, "\(afterCancel) tokens arrived after the cancel")
            #expect(result.generatedTokens <= 6, "generated \(result.generatedTokens) tokens after cancelling at 5")
            // How fast a cancel is honoured is `bench llm`'s to measure, not a test's.
        }
    }

    @Test("Ending the stream iteration early cancels the generation")
    func breakingOutOfStreamCancels() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(id)
            let events = sdk.events.events(for: .llm)
            let options = LLMGenerationOptions(maxTokens: 400, temperature: 0, ignoreEndOfSequence: true)
            var seen = 0
            for try await event in try await sdk.generateStream("Count to one hundred.", options: options) {
                if case .token = event { seen += 1 }
                if seen == 3 { break }
            }
            for await event in events {
                if case .generationCancelled(_, _, let tokens) = event.kind {
                    #expect(tokens < 20)
                    break
                }
                if case .generationCompleted = event.kind {
                    Issue.record("generation ran to completion instead of being cancelled")
                    break
                }
            }
        }
    }

    @Test("A stop sequence stops generation and is left out of the text")
    func stopSequencesStop() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(id)
            var options = LLMGenerationOptions(maxTokens: 64, temperature: 0, repetitionPenalty: 1)
            let free = try await sdk.generate("Count from 1 to 10, separated by commas.", options: options)
            // Stop on the second comma-separated item the model actually produced.
            let parts = free.text.components(separatedBy: ",")
            try #require(parts.count > 3, "the model should list numbers: \(free.text)")
            let stop = parts[2].trimmingCharacters(in: .whitespaces)
            options.stopSequences = [stop]
            let stopped = try await sdk.generate("Count from 1 to 10, separated by commas.", options: options)
            #expect(stopped.finishReason == .stopSequence)
            #expect(!stopped.text.contains(stop))
            #expect(free.text.hasPrefix(stopped.text))
            #expect(stopped.generatedTokens < free.generatedTokens)
        }
    }

    @Test("Chat applies the model's chat template")
    func chatTemplateIsApplied() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(id)
            let question = "What is the capital of France?"
            var raw = greedy
            raw.applyChatTemplate = false
            let untemplated = try await sdk.generate(question, options: raw)
            let chat = try await sdk.chat(
                [.system("You are a helpful assistant."), .user(question)],
                options: greedy
            )
            // The template wraps the turns in role markers: many more prompt tokens.
            #expect(chat.promptTokens >= untemplated.promptTokens + 8)
            #expect(chat.text.contains("Paris"), "answer: \(chat.text)")
            // A prompt through generate() is the same single user turn.
            let generated = try await sdk.generate(question, options: greedy)
            let chatNoSystem = try await sdk.chat([.user(question)], options: greedy)
            #expect(generated.text == chatNoSystem.text)
        }
    }

    @Test("Metrics are positive and consistent")
    func metricsAreConsistent() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(id)
            let options = LLMGenerationOptions(maxTokens: 20, temperature: 0, ignoreEndOfSequence: true)
            let r = try await sdk.generate("Tell me about the moon.", options: options)
            #expect(r.finishReason == .length)
            #expect(r.generatedTokens == 20)
            #expect(r.promptTokens > 5)
            #expect(r.timeToFirstTokenMs > 0)
            #expect(r.timeToFirstTokenMs < r.totalMs)
            #expect(r.tokensPerSecond > 1)
            #expect(r.promptTokensPerSecond > 1)
            // 19 decode steps at the measured speed fit in the time after the first token.
            let decodeMs = Double(r.generatedTokens - 1) / r.tokensPerSecond * 1000
            #expect(decodeMs <= r.totalMs - r.timeToFirstTokenMs + 1)
            #expect(r.modelId == id)
        }
    }

    @Test("Sampling with a seed is reproducible")
    func seededSamplingIsReproducible() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(id)
            let options = LLMGenerationOptions(maxTokens: 24, temperature: 0.9, seed: 42)
            let a = try await sdk.generate("Invent a name for a cat.", options: options)
            let b = try await sdk.generate("Invent a name for a cat.", options: options)
            #expect(a.text == b.text)
        }
    }

    @Test("Events arrive in order: load, then generation")
    func eventsArriveInOrder() async throws {
        try await withSDK { sdk in
            let stream = sdk.events.events(for: .model, .llm)
            try await sdk.loadModel(id)
            _ = try await sdk.generate("Hi", options: LLMGenerationOptions(maxTokens: 4, temperature: 0))
            var names: [String] = []
            for await event in stream {
                names.append(event.kind.name)
                if case .modelLoadCompleted(_, _, let ms) = event.kind { #expect(ms > 0) }
                if names.count == 4 { break }
            }
            #expect(
                names == [
                    "model_load_started", "model_load_completed", "generation_started", "generation_completed",
                ]
            )
        }
    }

    @Test("Loading the loaded model is a no-op; loading another unloads the first")
    func lifecycle() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(id)
            let stream = sdk.events.events(for: .model)
            try await sdk.loadModel(id)
            var copy = try DefaultModels.llm()
            copy.id = "smollm2-copy"
            try sdk.registerModel(copy)
            try await sdk.loadModel("smollm2-copy")
            #expect(await sdk.currentLLMModel?.id == "smollm2-copy")
            var names: [String] = []
            for await event in stream {
                names.append(event.kind.name)
                if names.count == 3 { break }
            }
            // No second load of the first model; the first is unloaded before the second loads.
            #expect(names == ["model_unloaded", "model_load_started", "model_load_completed"])
            try await sdk.unloadModel()
            #expect(await sdk.currentLLMModel == nil)
        }
    }

    @Test("Two concurrent loads of one model share a single load")
    func concurrentLoadsOfOneModelShareALoad() async throws {
        try await withSDK { sdk in
            let stream = sdk.events.events(for: .model)
            async let a: Void = sdk.loadModel(id)
            async let b: Void = sdk.loadModel(id)
            _ = try await (a, b)
            var names: [String] = []
            for await event in stream {
                names.append(event.kind.name)
                if event.kind.name == "model_load_completed" { break }
            }
            #expect(names == ["model_load_started", "model_load_completed"])
            let r = try await sdk.generate("Hello", options: LLMGenerationOptions(maxTokens: 4, temperature: 0))
            #expect(r.generatedTokens > 0)
        }
    }

    @Test("A concurrent load of a different model is refused while one loads")
    func concurrentLoadOfAnotherModelIsRefused() async throws {
        try await withSDK { sdk in
            var copy = try DefaultModels.llm()
            copy.id = "smollm2-copy"
            try sdk.registerModel(copy)
            let before = try sdk.availableModels().map { "\($0.id) \($0.localPath?.path ?? "-")" }
            let events = sdk.events.events(for: .model)
            let first = Task { try await sdk.loadModel(id) }
            // Let the first load begin before the second arrives.
            var started = false
            for await event in events {
                if case .modelLoadStarted = event.kind {
                    started = true
                    break
                }
            }
            #expect(started)
            await expectCode(.modelLoadInProgress) { try await sdk.loadModel("smollm2-copy") }
            try await first.value
            #expect(await sdk.currentLLMModel?.id == id)
            // Loading only stamps lastUsedAt; the entries themselves are untouched.
            #expect(try sdk.availableModels().map { "\($0.id) \($0.localPath?.path ?? "-")" } == before)
        }
    }
}

@Suite("Prompt cache", .serialized, .wholeMachine, .tags(.realEngine))
struct PromptCacheTests {
    @Test("Reusing the cached prefix of the last prompt gives the same greedy reply as evaluating from scratch")
    func prefixReuseIsExact() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(DefaultModels.llmId)
            let turns: [ChatMessage] = [
                .system("You are terse."), .user("Name a fruit."), .assistant("Apple."), .user("Name another one."),
            ]
            var fresh = greedy
            fresh.reusePromptCache = false
            let reference = try await sdk.chat(turns, options: fresh)
            // Fill the cache with the conversation's beginning, then continue it.
            _ = try await sdk.chat(Array(turns.prefix(2)), options: greedy)
            let reused = try await sdk.chat(turns, options: greedy)
            #expect(reused.text == reference.text)
            #expect(reused.promptTokens == reference.promptTokens)
            // A different conversation afterwards is not polluted by the cached one.
            let other = try await sdk.chat([.user("Say hello.")], options: greedy)
            let otherFresh = try await sdk.chat([.user("Say hello.")], options: fresh)
            #expect(other.text == otherFresh.text)
        }
    }
}
