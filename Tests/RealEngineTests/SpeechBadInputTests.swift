import Foundation
import RealEngineTestSupport
import RunAnywhereTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

extension RealEngineTests {
    @Suite("Speech bad inputs")
    struct SpeechBadInputTests {
        @Test("Recognition without a loaded model says so")
        func noModel() async throws {
            try await withSDK(models: []) { sdk in
                await expectCode(.modelNotLoaded) {
                    try await sdk.transcribe(PCMAudio.silence(duration: 1, sampleRate: 16_000))
                }
            }
        }

        @Test("Empty audio, a single sample, NaN samples and a corrupt WAV are invalid audio")
        func badAudio() async throws {
            try await withSDK(models: DefaultModels.speech) { sdk in
                try await sdk.loadSTTModel(DefaultModels.sttId)
                await expectCode(.invalidAudio) {
                    try await sdk.transcribe(PCMAudio(samples: [], sampleRate: 16_000))
                }
                await expectCode(.invalidAudio) {
                    try await sdk.transcribe(PCMAudio(samples: [0.1], sampleRate: 16_000))
                }
                var nan = PCMAudio.silence(duration: 1, sampleRate: 16_000)
                nan.samples[100] = .nan
                await expectCode(.invalidAudio) { try await sdk.transcribe(nan) }
                let nanWAV = WAVFile.encode(nan, format: .float32)
                await expectCode(.invalidAudio) { try await sdk.transcribe(audio: nanWAV) }
                var corrupt = WAVFile.encode(.silence(duration: 1, sampleRate: 16_000))
                corrupt.replaceSubrange(8..<12, with: Data("JUNK".utf8))
                corrupt.replaceSubrange(0..<4, with: Data("RIFF".utf8))
                await expectCode(.invalidAudio) { try await sdk.transcribe(audio: corrupt) }
                await expectCode(.invalidAudio) {
                    try await sdk.detectVoiceActivity(PCMAudio(samples: [], sampleRate: 16_000))
                }
                // The model is still usable after all that.
                let fine = try await sdk.transcribe(PCMAudio.silence(duration: 1, sampleRate: 16_000))
                #expect(fine.audioDuration == 1)
            }
        }

        @Test("8 kHz and 44.1 kHz stereo recordings are resampled and recognized", arguments: [8000, 44_100])
        func otherRates(rate: Int) async throws {
            try await withSDK(models: DefaultModels.speech) { sdk in
                try await sdk.loadTTSModel(DefaultModels.ttsId)
                try await sdk.loadSTTModel(DefaultModels.sttId)
                let speech = try await sdk.synthesize("Turn on the kitchen lights.").audio.resampled(to: rate)
                let stereo = PCMAudio(samples: speech.samples.flatMap { [$0, $0] }, sampleRate: rate, channels: 2)
                let heard = try await sdk.transcribe(audio: WAVFile.encode(stereo))
                #expect(words(heard.text).contains("kitchen"), "heard \"\(heard.text)\"")
                #expect(abs(heard.audioDuration - speech.duration) < 0.01)
            }
        }

        @Test("Empty text, text without words, bad options and an unknown voice are refused")
        func badText() async throws {
            try await withSDK(models: DefaultModels.speech) { sdk in
                await expectCode(.emptyText) { try await sdk.synthesize("") }
                await expectCode(.emptyText) { try await sdk.synthesize("  \n ") }
                await expectCode(.emptyText) { try await sdk.synthesize("... !!") }
                await expectCode(.invalidInput) { try await sdk.synthesize("Hi.", options: TTSOptions(rate: 0)) }
                await expectCode(.invalidInput) {
                    try await sdk.synthesize("Hi.", options: TTSOptions(volume: .nan))
                }
                await expectCode(.voiceNotFound) {
                    try await sdk.synthesize("Hi.", options: TTSOptions(voice: "no-such-voice"))
                }
                await expectCode(.invalidInput) { try await sdk.configureVAD(VADConfiguration(threshold: 2)) }
            }
        }

        @Test("Broken voice and recognizer files fail to load with a typed error, and the process survives")
        func brokenModels() async throws {
            try await withSDK(models: []) { sdk in
                let home = sdk.paths.home
                // A Piper voice without sherpa's metadata would make sherpa-onnx end the process.
                let raw = home.appendingPathComponent("raw-voice", isDirectory: true)
                try FileManager.default.createDirectory(at: raw, withIntermediateDirectories: true)
                let voice = try DefaultModels.model(DefaultModels.ttsId).localPath!
                try Data(repeating: 7, count: 4096).write(to: raw.appendingPathComponent("voice.onnx"))
                try FileManager.default.copyItem(
                    at: voice.deletingLastPathComponent().appendingPathComponent("tokens.txt"),
                    to: raw.appendingPathComponent("tokens.txt")
                )
                try sdk.importModel(from: raw, id: "raw-voice", category: .speechSynthesis, framework: .sherpaOnnx)
                await expectCode(.invalidModelFormat) { try await sdk.loadTTSModel("raw-voice") }

                let lone = home.appendingPathComponent("lone.onnx")
                try FileManager.default.copyItem(at: voice, to: lone)
                try sdk.importModel(
                    from: lone,
                    id: "voice-without-tokens",
                    category: .speechSynthesis,
                    framework: .sherpaOnnx
                )
                await expectCode(.modelFileNotFound) { try await sdk.loadTTSModel("voice-without-tokens") }

                let garbage = home.appendingPathComponent("garbage.bin")
                try Data(repeating: 1, count: 10_000).write(to: garbage)
                try sdk.importModel(
                    from: garbage,
                    id: "garbage-whisper",
                    category: .speechRecognition,
                    framework: .whisperCpp
                )
                await expectCode(.modelLoadFailed) { try await sdk.loadSTTModel("garbage-whisper") }
                #expect(await sdk.currentSTTModel == nil)
                #expect(await sdk.currentTTSModel == nil)
            }
        }
    }
}
