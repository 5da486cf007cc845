import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

/// sherpa-onnx on the default models: the Piper voice and the Silero voice-activity detector.
@Suite("sherpa-onnx voices and voice activity", .serialized, .wholeMachine, .tags(.realEngine))
struct SherpaSpeechTests {
    @Test(
        "Speech, two seconds of silence, speech: both stretches are found within 250 ms",
        arguments: ["silero-vad", "energy"]
    )
    func vadFindsSpeech(detector: String) async throws {
        try await withSDK(models: DefaultModels.speech) { sdk in
            try await sdk.loadTTSModel(DefaultModels.ttsId)
            let first = try await sdk.synthesize("Turn on the kitchen lights please.").audio.resampled(to: 16_000)
            let second = try await sdk.synthesize("What time is it in Tokyo?").audio.resampled(to: 16_000)
            var file = PCMAudio.silence(duration: 1, sampleRate: 16_000)
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

    @Test("Sentences stream out one by one, and speak plays them through the output")
    func streamingSynthesisAndSpeak() async throws {
        try await withSDK(models: DefaultModels.speech) { sdk in
            let home = sdk.paths.home
            try await sdk.loadTTSModel(DefaultModels.ttsId)
            let text =
                "This is the first sentence. Here comes a second one, a little longer than the first. And a third."
            // One piece a sentence (how soon the first comes is `bench tts`'s to measure).
            var pieces: [TTSOutput] = []
            for try await piece in sdk.synthesizeSentences(text) { pieces.append(piece) }
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
