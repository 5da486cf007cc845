import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

/// whisper on recordings of real people (scripts/fetch_real_speech.py), not our own voice.
/// Decoding loops show in the text (words said twice, sentences invented), so the checks read
/// the transcripts, never the clock; the 0.5 s target is checked by
/// `runanywhere bench stt --real`.
@Suite("Speech recognition on real human recordings", .serialized, .wholeMachine, .tags(.realEngine))
struct RealSpeechTests {
    /// Every clip of the small sources, and every fourth of the one telephone speaker's many:
    /// about 110 clips, 11 speakers, words under a second to sentences of 11 s.
    static func clips() throws -> [SpeechCorpus.Clip] {
        let corpus = try SpeechCorpus.bootstrapped()
        let telephone = corpus.clips.filter { $0.speaker == "asterisk-allison" }
        let others = corpus.clips.filter { $0.speaker != "asterisk-allison" }
        return others + telephone.enumerated().filter { $0.offset % 4 == 0 }.map(\.element)
    }

    @Test("Real recordings come back with few word errors, no words said twice, and nothing invented")
    func realRecordings() async throws {
        let clips = try Self.clips()
        try #require(clips.count >= 100, "the real-speech set is missing clips: run scripts/bootstrap models")
        try await withSDK(models: [DefaultModels.sttId]) { sdk in
            try await sdk.loadSTTModel(DefaultModels.sttId)
            var results: [WordErrorRate] = []
            var short: [WordErrorRate] = []
            for clip in clips {
                let audio = try WAVFile.read(contentsOf: clip.file)
                let output = try await sdk.transcribe(audio, options: STTOptions(language: "en"))
                let wer = WordErrorRate(reference: clip.transcript, hypothesis: output.text)
                results.append(wer)
                if clip.seconds < 3 { short.append(wer) }
                #expect(
                    !SpeechCorpus.repeatsWords(output.text, reference: clip.transcript),
                    "\(clip.id): \"\(output.text)\" for \"\(clip.transcript)\""
                )
                // Nothing invented: a transcript may miss or mishear words, not add a sentence.
                #expect(
                    wer.insertions <= wer.referenceWords + 2,
                    "\(clip.id): \"\(output.text)\" for \"\(clip.transcript)\""
                )
            }
            let all = WordErrorRate(combining: results)
            let shortClips = WordErrorRate(combining: short)
            print("real speech: WER \(all.rate) over \(clips.count) clips; \(shortClips.rate) under 3 s")
            #expect(all.rate <= 0.12)
            #expect(shortClips.rate <= 0.15)
        }
    }

    @Test("A cancelled transcription stops with transcriptionCancelled, and the engine transcribes normally after")
    func cancelledTranscription() async throws {
        let corpus = try SpeechCorpus.bootstrapped()
        let jfk = try #require(corpus.clips.first { $0.id == "jfk" })
        try await withSDK(models: [DefaultModels.sttId]) { sdk in
            try await sdk.loadSTTModel(DefaultModels.sttId)
            let audio = try WAVFile.read(contentsOf: jfk.file)
            // Several at once, all cancelled: each stops (before or during its engine call).
            let abandoned = (0..<3).map { _ in
                Task { try await sdk.transcribe(audio, options: STTOptions(language: "en")) }
            }
            for task in abandoned { task.cancel() }
            for task in abandoned {
                do {
                    _ = try await task.value
                    Issue.record("a cancelled transcription finished")
                } catch let error as SDKException {
                    #expect(error.code == .transcriptionCancelled, "\(error)")
                }
            }
            let output = try await sdk.transcribe(audio, options: STTOptions(language: "en"))
            #expect(WordErrorRate(reference: jfk.transcript, hypothesis: output.text).rate < 0.1, "\(output.text)")
        }
    }

    @Test(
        "Silence, mains hum and faint noise transcribe to nothing, at every rate and channel count",
        arguments: [(16_000, 1), (48_000, 2), (96_000, 1), (44_100, 2), (8_000, 1)]
    )
    func nothingSaid(rate: Int, channels: Int) async throws {
        try await withSDK(models: [DefaultModels.sttId]) { sdk in
            try await sdk.loadSTTModel(DefaultModels.sttId)
            for (name, signal) in Self.nonSpeech(rate: rate) {
                let interleaved = signal.flatMap { Array(repeating: $0, count: channels) }
                let audio = PCMAudio(samples: interleaved, sampleRate: rate, channels: channels)
                let output = try await sdk.transcribe(audio)
                #expect(output.text.isEmpty, "\(name) at \(rate) Hz × \(channels): \"\(output.text)\"")
                #expect(output.segments.isEmpty)
            }
        }
    }

    /// One or three seconds of digital silence, 50 Hz hum with its harmonics, and white
    /// noise at -50 dBFS and -30 dBFS (a quiet room, a fan).
    static func nonSpeech(rate: Int) -> [(String, [Float])] {
        var generator = SplitMix(seed: UInt64(rate))
        func noise(seconds: Double, rms: Float) -> [Float] {
            // Uniform noise of this RMS: amplitude √3 × rms.
            (0..<Int(seconds * Double(rate))).map { _ in Float(generator.nextUnit() * 2 - 1) * rms * 1.732 }
        }
        let hum = (0..<(3 * rate)).map { index -> Float in
            let t = Float(index) / Float(rate)
            return 0.05 * sin(2 * .pi * 50 * t) + 0.02 * sin(2 * .pi * 150 * t) + 0.01 * sin(2 * .pi * 250 * t)
        }
        return [
            ("1 s of silence", [Float](repeating: 0, count: rate)),
            ("3 s of silence", [Float](repeating: 0, count: 3 * rate)),
            ("hum", hum),
            ("noise at -50 dBFS", noise(seconds: 2, rms: 0.00316)),
            ("noise at -30 dBFS", noise(seconds: 2, rms: 0.0316)),
        ]
    }
}
