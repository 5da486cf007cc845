import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

extension RealEngineTests {
    @Suite("Speech")
    struct SpeechTests {
        static let sentences = [
            "Turn on the kitchen lights.",
            "What is the weather like today?",
            "Please call my mother tonight.",
            "The quick brown fox jumps over the lazy dog.",
            "Set a timer for ten minutes.",
            "I would like a cup of coffee with milk.",
            "Where is the nearest train station?",
            "Play some music in the living room.",
            "Remind me to buy bread tomorrow morning.",
            "How far is it to the airport?",
        ]

        @Test("Text spoken by the neural voice comes back from whisper with at most 20% word errors")
        func roundTrip() async throws {
            try await withSDK(models: DefaultModels.speech) { sdk in
                try await sdk.loadTTSModel(DefaultModels.ttsId)
                try await sdk.loadSTTModel(DefaultModels.sttId)
                var errors = 0
                var total = 0
                for sentence in Self.sentences {
                    let speech = try await sdk.synthesize(sentence)
                    let heard = try await sdk.transcribe(speech.audio)
                    let reference = words(sentence)
                    let distance = WordErrorRate(referenceWords: reference, hypothesisWords: words(heard.text)).errors
                    errors += distance
                    total += reference.count
                    print(
                        "round trip: \"\(sentence)\" → \"\(heard.text)\" (\(distance) errors, RTF \(String(format: "%.3f", heard.realTimeFactor)))"
                    )
                    #expect(!heard.segments.isEmpty)
                    #expect(
                        heard.segments.allSatisfy {
                            $0.start >= 0 && $0.end <= speech.duration + 0.5 && $0.start <= $0.end
                        }
                    )
                }
                let wer = Double(errors) / Double(total)
                print("round trip WER: \(errors)/\(total) = \(String(format: "%.1f%%", wer * 100))")
                #expect(wer <= 0.20)
            }
        }

        @Test("Streaming VAD over 32 ms chunks reports a start and an end around the speech, and resets")
        func streamingVAD() async throws {
            try await withSDK(models: DefaultModels.speech) { sdk in
                try await sdk.loadVADModel(DefaultModels.vadId)
                let speech = try await sdk.synthesize(
                    "Set a timer for ten minutes.",
                    options: TTSOptions(voice: "espeak-ng:en-us")
                ).audio.speechInput()
                var audio = PCMAudio.silence(duration: 1, sampleRate: 16_000)
                audio.append(speech)
                audio.append(.silence(duration: 1.5, sampleRate: 16_000))
                let span = audibleSpan(speech)
                let chunks = AsyncStream<PCMAudio> { continuation in
                    for chunk in audio.chunks(frames: 512) { continuation.yield(chunk) }
                    continuation.finish()
                }
                var events: [SpeechActivityEvent] = []
                for try await event in sdk.streamVAD(chunks) { events.append(event) }
                #expect(events.map(\.kind) == [.speechStarted, .speechEnded])
                if events.count == 2 {
                    #expect(abs(events[0].time - (1 + span.start)) <= 0.25)
                    #expect(abs(events[1].time - (1 + span.end)) <= 0.25)
                }
                // Per-chunk results carry the probability and the level.
                try await sdk.resetVAD()
                let quiet = try await sdk.detectVoiceActivity(PCMAudio.silence(duration: 0.032, sampleRate: 16_000))
                #expect(!quiet.isSpeech && quiet.probability == 0 && quiet.energyDecibels == -.infinity)
            }
        }

        @Test("Streaming recognition yields partial results, then a final one close to the batch result")
        func streaming() async throws {
            try await withSDK(models: DefaultModels.speech) { sdk in
                try await sdk.loadTTSModel(DefaultModels.ttsId)
                try await sdk.loadSTTModel(DefaultModels.sttId)
                let speech = try await sdk.synthesize(
                    "The quick brown fox jumps over the lazy dog. Then it runs into the forest."
                )
                let batch = try await sdk.transcribe(speech.audio)
                // Raw 16-bit PCM chunks, as a microphone stream would deliver them.
                let pcm = speech.audio.speechInput()
                let chunks = AsyncStream<Data> { continuation in
                    for chunk in pcm.chunks(duration: 0.25) { continuation.yield(chunk.pcm16Data) }
                    continuation.finish()
                }
                var partials: [STTPartialResult] = []
                var final: STTPartialResult?
                for try await result in sdk.transcribeStream(chunks, options: STTOptions(partialInterval: 1.0)) {
                    if result.isFinal { final = result } else { partials.append(result) }
                }
                print("streaming: \(partials.count) partials, final \"\(final?.text ?? "-")\", batch \"\(batch.text)\"")
                #expect(partials.count >= 2)
                #expect(partials.map(\.audioDuration) == partials.map(\.audioDuration).sorted())
                let finalResult = try #require(final)
                #expect(abs(finalResult.audioDuration - pcm.duration) < 0.01)
                let distance = WordErrorRate(reference: batch.text, hypothesis: finalResult.text).errors
                #expect(Double(distance) <= 0.1 * Double(words(batch.text).count) + 0.5)
            }
        }

        @Test("The language model and the speech recognizer run side by side in one process")
        func llmAndSTTTogether() async throws {
            try await withSDK(models: [DefaultModels.llmId] + DefaultModels.speech) { sdk in
                try await sdk.loadModel(DefaultModels.llmId)
                try await sdk.loadSTTModel(DefaultModels.sttId)
                let speech = try await sdk.synthesize("Turn on the kitchen lights.")
                async let heard = sdk.transcribe(speech.audio)
                async let reply = sdk.generate("Say hello.", options: greedy)
                let (text, generation) = try await (heard, reply)
                #expect(words(text.text).contains("kitchen"))
                #expect(generation.generatedTokens > 0)
                #expect(await sdk.currentLLMModel?.id == DefaultModels.llmId)
                #expect(await sdk.currentSTTModel?.id == DefaultModels.sttId)
            }
        }

    }
}
