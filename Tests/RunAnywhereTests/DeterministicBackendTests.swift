import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Synchronization
import Testing

@testable import RunAnywhereTesting

@Suite("Deterministic backend")
struct DeterministicBackendTests {
    @Test("The snippet from the README runs as written")
    func readmeSnippet() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: home) }
        let sdk = try RunAnywhereSDK(home: home, environment: .development, modules: [DeterministicBackend()])
        try registerDeterministicModels(in: sdk)
        try await sdk.loadModel("test-llm")
        let options = LLMGenerationOptions(maxTokens: 12, temperature: 0.7, seed: 42)
        let a = try await sdk.generate("Hello", options: options)
        let b = try await sdk.generate("Hello", options: options)
        #expect(a.text == b.text)
        #expect(a.generatedTokens <= 12)
        #expect(!a.text.isEmpty)
        try await sdk.loadSTTModel("test-stt")
        let heard = try await sdk.transcribe(DeterministicBackend.speech(for: "turn on the lights"))
        #expect(heard.text == "turn on the lights")
        await sdk.shutdown()
    }

    @Test("A reply depends on the prompt and, when sampling, on the seed; greedy ignores the seed")
    func replyIsAFunctionOfItsInputs() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadModel("test-llm")
            func reply(_ prompt: String, _ temperature: Float, _ seed: UInt32?) async throws -> String {
                try await sdk.generate(
                    prompt,
                    options: LLMGenerationOptions(
                        maxTokens: 40,
                        temperature: temperature,
                        seed: seed
                    )
                ).text
            }
            let seeds = try await [1, 2, 3, 4].asyncMap { try await reply("Hello", 0.8, $0) }
            #expect(Set(seeds).count > 1, "different seeds give different replies: \(seeds)")
            #expect(try await reply("Hello", 0.8, 7) == reply("Hello", 0.8, 7))
            #expect(try await reply("Hello", 0, 1) == reply("Hello", 0, 2))
            let prompts = try await ["Hello", "Goodbye", "What time is it?"].asyncMap { try await reply($0, 0, nil) }
            #expect(Set(prompts).count == 3, "\(prompts)")
        }
    }

    @Test("maxTokens, stop sequences and token counts hold, and the metrics are filled in")
    func limitsAndMetrics() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadModel("test-llm")
            let long = try await sdk.generate(
                "Tell me everything",
                options: LLMGenerationOptions(
                    maxTokens: 30,
                    temperature: 0,
                    ignoreEndOfSequence: true
                )
            )
            #expect(long.generatedTokens == 30)
            #expect(long.finishReason == .length)
            #expect(long.promptTokens > 3)
            #expect(long.totalMs >= long.timeToFirstTokenMs)
            let word = try #require(long.text.split(separator: " ").dropFirst(3).first.map(String.init))
            let stopped = try await sdk.generate(
                "Tell me everything",
                options: LLMGenerationOptions(
                    maxTokens: 30,
                    temperature: 0,
                    stopSequences: [word],
                    ignoreEndOfSequence: true
                )
            )
            #expect(stopped.finishReason == .stopSequence)
            #expect(!stopped.text.contains(word))
            #expect(long.text.hasPrefix(stopped.text))
        }
    }

    @Test("A grammar is honoured: the reply is a text of it, streamed in tokens and cut by maxTokens")
    func grammarIsHonoured() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadModel("test-llm")
            let yesNo = LLMGrammar(#"root ::= "yes" | "no""#)
            var answers: Set<String> = []
            for seed: UInt32 in 1...12 {
                let options = LLMGenerationOptions(maxTokens: 4, seed: seed, ignoreEndOfSequence: true, grammar: yesNo)
                let reply = try await sdk.generate("Is water wet?", options: options)
                #expect(reply.finishReason == .stop)
                answers.insert(reply.text)
            }
            #expect(answers == ["yes", "no"])

            let call = LLMGrammar(#"root ::= "{\"city\": \"" [a-z]{3,8} "\", \"days\": " [1-9] "}""#)
            let options = LLMGenerationOptions(maxTokens: 64, seed: 3, grammar: call)
            let whole = try await sdk.generate("Weather?", options: options)
            #expect(whole.finishReason == .stop)
            #expect(try JSONValue(parsing: whole.text)["days"]?.integerValue != nil)
            var pieces: [String] = []
            for try await event in try await sdk.generateStream("Weather?", options: options) {
                if case .token(let text, _) = event { pieces.append(text) }
            }
            #expect(pieces.joined() == whole.text)
            #expect(pieces.count == whole.generatedTokens)

            var short = options
            short.maxTokens = 3
            let cut = try await sdk.generate("Weather?", options: short)
            #expect(cut.finishReason == .length)
            #expect(cut.generatedTokens == 3)
            #expect(cut.text == #"{"city"#)

            let lazy = LLMGrammar.lazy(#"root ::= "<call>" [a-z]+ "</call>""#, triggeredBy: ["<call>"])
            let called = try await sdk.generate("Call", options: LLMGenerationOptions(maxTokens: 32, grammar: lazy))
            #expect(called.text.wholeMatch(of: /<call>[a-z]+<\/call>/) != nil, "\(called.text)")

            let broken = LLMGenerationOptions(maxTokens: 8, grammar: LLMGrammar(#"root ::= "unclosed"#))
            let error = await #expect(throws: SDKException.self) {
                try await sdk.generate("Hello", options: broken)
            }
            #expect(error?.code == .invalidGrammar)
        }
    }

    @Test("Streaming yields the same text as a plain generation, token by token")
    func streaming() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadModel("test-llm")
            let options = LLMGenerationOptions(maxTokens: 20, temperature: 0.5, seed: 3)
            let whole = try await sdk.generate("Stream this", options: options)
            var pieces: [String] = []
            var completed: LLMGenerationResult?
            for try await event in try await sdk.generateStream("Stream this", options: options) {
                switch event {
                case .token(let text, _): pieces.append(text)
                case .completed(let result): completed = result
                }
            }
            #expect(pieces.joined() == whole.text)
            #expect(pieces.count == whole.generatedTokens)
            #expect(completed?.text == whole.text)
        }
    }

    @Test("Simulated timing delays the first token, and cancelling stops a slow stream")
    func timingAndCancellation() async throws {
        let timing = DeterministicBackend.Timing(firstTokenDelay: .milliseconds(50), tokensPerSecond: 200)
        try await withDeterministicSDK(timing: timing) { sdk in
            try await sdk.loadModel("test-llm")
            let result = try await sdk.generate(
                "Slowly",
                options: LLMGenerationOptions(
                    maxTokens: 5,
                    temperature: 0,
                    ignoreEndOfSequence: true
                )
            )
            #expect(result.timeToFirstTokenMs >= 50)
            #expect(result.generatedTokens == 5)
            let endless = LLMGenerationOptions(maxTokens: 100_000, temperature: 0, ignoreEndOfSequence: true)
            var tokens = 0
            for try await event in try await sdk.generateStream("Forever", options: endless) {
                if case .token = event { tokens += 1 }
                if tokens == 3 { break }
            }
            #expect(tokens == 3)
            let events = sdk.events.events(for: .llm)
            let task = Task { try await sdk.generate("Forever", options: endless) }
            for await event in events {
                if case .generationStarted = event.kind { break }
            }
            await sdk.cancelGeneration()
            let cancelled = try await task.value
            #expect(cancelled.finishReason == .cancelled)
            #expect(cancelled.generatedTokens < 100_000)
        }
    }

    @Test("Coded speech survives other rates, stereo, a lower volume and a 16-bit WAV round trip")
    func speechSurvivesConversions() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadSTTModel("test-stt")
            let text = "Set a timer for 10 minutes, please. Ünïcødé ✓"
            for rate in [8_000, 16_000, 22_050, 44_100, 48_000] {
                let heard = try await sdk.transcribe(DeterministicBackend.speech(for: text, sampleRate: rate))
                #expect(heard.text == text, "at \(rate) Hz")
            }
            let mono = DeterministicBackend.speech(for: text, sampleRate: 48_000)
            let stereo = PCMAudio(samples: mono.samples.flatMap { [$0, $0] }, sampleRate: 48_000, channels: 2)
            #expect(try await sdk.transcribe(stereo).text == text)
            let quiet = PCMAudio(samples: mono.samples.map { $0 * 0.05 }, sampleRate: 48_000)
            #expect(try await sdk.transcribe(quiet).text == text)
            let wav = WAVFile.encode(mono, format: .int16)
            #expect(try await sdk.transcribe(audio: wav).text == text)
        }
    }

    @Test("Audio without a code transcribes to nothing")
    func noCodeNoWords() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadSTTModel("test-stt")
            let silence = PCMAudio(samples: [Float](repeating: 0, count: 16_000), sampleRate: 16_000)
            #expect(try await sdk.transcribe(silence).text == "")
            var random = SystemRandomNumberGenerator()
            let noise = PCMAudio(
                samples: (0..<16_000).map { _ in Float.random(in: -0.5...0.5, using: &random) },
                sampleRate: 16_000
            )
            #expect(try await sdk.transcribe(noise).text == "")
            var cut = DeterministicBackend.speech(for: "a sentence cut short")
            cut = cut.slice(from: 0, to: cut.duration / 2)
            #expect(try await sdk.transcribe(cut).text == "")
        }
    }

    @Test("What the deterministic voice says transcribes back to the text, at a speaking pace")
    func voiceRoundTrip() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadTTSModel("test-tts")
            try await sdk.loadSTTModel("test-stt")
            let text = "The kitchen lights are on."
            let spoken = try await sdk.synthesize(text)
            #expect(spoken.duration > Double(text.count) * 0.04 && spoken.duration < Double(text.count) * 0.2)
            #expect(try await sdk.transcribe(spoken.audio).text == text)
            let faster = try await sdk.synthesize(text, options: TTSOptions(rate: 2, volume: 0.5))
            #expect(faster.duration < spoken.duration)
            #expect(try await sdk.transcribe(faster.audio).text == text)
        }
    }

    @Test("The original SDK's speech stream yields each sentence, and an error ends it without a throw, as an event")
    func seedSpeechStream() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadTTSModel("test-tts")
            try await sdk.loadSTTModel("test-stt")
            var heard: [String] = []
            for await sentence in sdk.synthesizeStream("The lights are on. The door is shut.", options: TTSOptions()) {
                heard.append(try await sdk.transcribe(sentence.audio).text)
            }
            #expect(heard == ["The lights are on.", "The door is shut."])

            // Published before the stream ends, on the publisher's thread.
            let failures = Mutex<[SDKException.Code]>([])
            let subscription = sdk.events.on(.tts) { event in
                if case .synthesisFailed(_, let error) = event.kind { failures.withLock { $0.append(error.code) } }
            }
            var pieces = 0
            for await _ in sdk.synthesizeStream("   ", options: TTSOptions()) { pieces += 1 }
            #expect(pieces == 0)
            #expect(failures.withLock { $0 } == [.emptyText])
            subscription.cancel()
        }
    }

    @Test("The deterministic VAD finds coded speech between silences")
    func voiceActivity() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadVADModel("test-vad")
            let silence = PCMAudio(samples: [Float](repeating: 0, count: 16_000), sampleRate: 16_000)
            var audio = silence
            audio.append(DeterministicBackend.speech(for: "is anybody there"))
            audio.append(silence)
            let segments = try await sdk.detectSpeechSegments(in: audio)
            #expect(segments.count == 1)
            let segment = try #require(segments.first)
            #expect(segment.start > 0.9 && segment.start < 1.4)
            #expect(segment.end > 2 && segment.end < 2.6)
        }
    }

    @Test("Registering the models twice changes nothing, and they survive a new instance on the same home")
    func registrationIsIdempotent() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-det-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let first = try RunAnywhereSDK(home: home, modules: [DeterministicBackend()])
        try registerDeterministicModels(in: first)
        let before = try first.availableModels()
        try registerDeterministicModels(in: first)
        #expect(try first.availableModels() == before)
        #expect(
            before.map(\.id) == [
                "test-embedding", "test-llm", "test-reranker", "test-speaker", "test-stt", "test-tts", "test-vad",
                "test-vlm",
            ]
        )
        await first.shutdown()
        let second = try RunAnywhereSDK(home: home, modules: [DeterministicBackend()])
        // Dates round-trip through ISO 8601 at whole seconds, so compare what identifies each model.
        #expect(
            try second.availableModels().map { [$0.id, $0.localPath?.path] }
                == before.map { [$0.id, $0.localPath?.path] }
        )
        try await second.loadModel("test-llm")
        await second.shutdown()
    }
}

extension Array {
    /// `map` with an async transform, in order.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

extension DeterministicBackendTests {
    @Test("The model's pieces are its tokens with the whitespace before them, and join into the text")
    func pieces() {
        #expect(
            DeterministicLLMService.pieces(of: #"{"a": [1, 2]}"#) == [
                "{", "\"", "a", "\"", ":", " [", "1", ",", " 2", "]", "}",
            ]
        )
        #expect(DeterministicLLMService.pieces(of: "  hello world \n") == ["  hello", " world \n"])
        #expect(DeterministicLLMService.pieces(of: " \n ") == [" \n "])
        #expect(DeterministicLLMService.pieces(of: "").isEmpty)
    }
}
