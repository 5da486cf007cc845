import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

/// Words of a transcript, normalized as the word error rate counts them.
func words(_ text: String) -> [String] {
    WordErrorRate.words(text)
}

/// The first and last moments (seconds) where 10 ms windows rise above −40 dBFS.
func audibleSpan(_ audio: AudioBuffer) -> (start: Double, end: Double) {
    let windows = audio.chunks(duration: 0.01)
    let loud = windows.indices.filter { windows[$0].rmsDecibels > -40 }
    return (Double(loud.first ?? 0) * 0.01, Double((loud.last ?? 0) + 1) * 0.01)
}

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

        @Test(
            "Speech, two seconds of silence, speech: both stretches are found within 250 ms",
            arguments: ["silero-vad", "energy"]
        )
        func vadFindsSpeech(detector: String) async throws {
            try await withSDK(models: DefaultModels.speech) { sdk in
                try await sdk.loadTTSModel(DefaultModels.ttsId)
                let first = try await sdk.synthesize("Turn on the kitchen lights please.").audio.resampled(to: 16_000)
                let second = try await sdk.synthesize("What time is it in Tokyo?").audio.resampled(to: 16_000)
                var file = AudioBuffer.silence(duration: 1, sampleRate: 16_000)
                let firstOffset = file.duration
                file.append(first)
                file.append(.silence(duration: 2, sampleRate: 16_000))
                let secondOffset = file.duration
                file.append(second)
                file.append(.silence(duration: 1, sampleRate: 16_000))
                let spanA = audibleSpan(first)
                let spanB = audibleSpan(second)
                let truth = [
                    (firstOffset + spanA.start, firstOffset + spanA.end),
                    (secondOffset + spanB.start, secondOffset + spanB.end),
                ]

                if detector != "energy" { try await sdk.loadVADModel(detector) }
                let segments = try await sdk.detectSpeechSegments(in: file)
                print(
                    "VAD \(detector): found \(segments.map { String(format: "%.2f–%.2f", $0.start, $0.end) }), truth \(truth.map { String(format: "%.2f–%.2f", $0.0, $0.1) })"
                )
                try #require(segments.count == 2)
                for (segment, expected) in zip(segments, truth) {
                    #expect(abs(segment.start - expected.0) <= 0.25)
                    #expect(abs(segment.end - expected.1) <= 0.25)
                }
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
                var audio = AudioBuffer.silence(duration: 1, sampleRate: 16_000)
                audio.append(speech)
                audio.append(.silence(duration: 1.5, sampleRate: 16_000))
                let span = audibleSpan(speech)
                let chunks = AsyncStream<AudioBuffer> { continuation in
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
                let quiet = try await sdk.detectVoiceActivity(AudioBuffer.silence(duration: 0.032, sampleRate: 16_000))
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

        @Test("The system voice speaks audibly, for about as long as the sentence takes, with no model")
        func systemVoice() async throws {
            try await withSDK(models: []) { sdk in
                let output = try await sdk.synthesize("Hello from the built in system voice.")
                print(
                    "system voice: \(output.voice), \(String(format: "%.2f", output.duration)) s, \(output.audio.rmsDecibels) dBFS"
                )
                #expect(output.voice.hasPrefix("espeak-ng:"))
                #expect(output.duration > 1.2 && output.duration < 4.5)
                #expect(output.audio.rmsDecibels > -30)
                let voices = try await sdk.availableTTSVoices()
                #expect(voices.contains { $0.id == "espeak-ng:en-us" && $0.isSystem })
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

        @Test("Sentences stream out one by one, and speak plays them through the output")
        func streamingSynthesisAndSpeak() async throws {
            try await withSDK(models: DefaultModels.speech) { sdk in
                let home = sdk.paths.home
                try await sdk.loadTTSModel(DefaultModels.ttsId)
                let text =
                    "This is the first sentence. Here comes a second one, a little longer than the first. And a third."
                // One piece a sentence (how soon the first comes is `bench tts`'s to measure).
                var pieces: [TTSOutput] = []
                for try await piece in sdk.synthesizeStream(text) { pieces.append(piece) }
                #expect(pieces.count == 3)
                #expect(pieces.allSatisfy { $0.duration > 0.3 }, "\(pieces.map(\.duration))")

                let url = home.appendingPathComponent("spoken.wav")
                let result = try await sdk.speak(text, output: WAVFileAudioOutput(url: url))
                let written = try WAVFile.read(contentsOf: url)
                #expect(result.chunks == 3)
                #expect(abs(written.duration - result.duration) < 0.01)
                // VITS samples its durations, so two renderings of one text differ a little.
                let streamed = pieces.map(\.duration).reduce(0, +)
                #expect(abs(written.duration - streamed) < 0.1 * streamed)
                #expect(result.firstAudioMs < result.totalMs)
            }
        }

        @Test("Rate shortens the speech, pitch keeps its length, volume lowers its level")
        func voiceOptions() async throws {
            try await withSDK(models: DefaultModels.speech) { sdk in
                try await sdk.loadTTSModel(DefaultModels.ttsId)
                let text = "The weather today is sunny and warm."
                let normal = try await sdk.synthesize(text)
                let fast = try await sdk.synthesize(text, options: TTSOptions(rate: 2))
                let high = try await sdk.synthesize(text, options: TTSOptions(pitch: 1.3))
                let quiet = try await sdk.synthesize(text, options: TTSOptions(volume: 0.5))
                #expect((0.35...0.7).contains(fast.duration / normal.duration))
                #expect((0.8...1.2).contains(high.duration / normal.duration))
                #expect(abs((normal.audio.rmsDecibels - quiet.audio.rmsDecibels) - 6.02) < 1.5)
            }
        }
    }
}
