import Foundation
import RealEngineTestSupport
import RunAnywhereTesting
import Testing

@_spi(Backend) @testable import RunAnywhere

extension RealEngineTests {
    /// Wake words on real recordings: pocketsphinx, and the transcript fallback on whisper.
    @Suite("Wake word")
    struct WakeWordRealTests {
        static let phrase = "please try again"

        /// The real-speech set's recordings that say ``phrase`` (ten, from a telephone
        /// system's prompts at 8 kHz), and a spread of the others from every speaker.
        static func recordings() throws -> (saying: [AudioBuffer], others: [(id: String, audio: AudioBuffer)]) {
            let corpus = try SpeechCorpus.bootstrapped()
            let words = WordErrorRate.words(phrase)
            func says(_ text: String) -> Bool {
                WakeWordConfiguration.contains(WordErrorRate.words(text), phrase: words)
            }
            let saying = try corpus.clips.filter { says($0.transcript) }.map { try WAVFile.read(contentsOf: $0.file) }
            // Every non-telephone recording, and every eighth telephone prompt.
            let others = try corpus.clips.filter { !says($0.transcript) }.enumerated()
                .filter { $0.element.speaker != "asterisk-allison" || $0.offset % 8 == 0 }
                .map { (id: $0.element.id, audio: try WAVFile.read(contentsOf: $0.element.file)) }
            return (saying, others)
        }

        @Test("pocketsphinx hears a phrase real people say in the recordings that say it, and not in the others")
        func pocketsphinxOnRealSpeech() async throws {
            let (saying, others) = try Self.recordings()
            try #require(saying.count >= 10)
            try await withSDK(models: []) { sdk in
                #expect(await sdk.wakeWordEngine == "pocketsphinx")
                let wake = WakeWordConfiguration(phrases: [Self.phrase])
                var found = 0
                for audio in saying {
                    let detections = try await sdk.detectWakeWords(in: audio, configuration: wake)
                    if let first = detections.first {
                        found += 1
                        // The phrase ends each of these prompts.
                        #expect(first.time > audio.duration - 1.5 && first.time <= audio.duration + 0.01)
                    }
                }
                #expect(found >= saying.count * 9 / 10, "found in \(found) of \(saying.count)")
                var falseAccepts: [String] = []
                for (id, audio) in others where !(try await sdk.detectWakeWords(in: audio, configuration: wake)).isEmpty
                {
                    falseAccepts.append(id)
                }
                let minutes = others.map(\.audio.duration).reduce(0, +) / 60
                print("wake word: \(found)/\(saying.count) found; false accepts \(falseAccepts) in \(minutes) min")
                #expect(falseAccepts.count <= 1, "\(falseAccepts)")
            }
        }

        @Test("A phrase with a word pocketsphinx's dictionary lacks is a typed error that names the word")
        func unknownWord() async throws {
            try await withSDK(models: []) { sdk in
                let error = await #expect(throws: SDKException.self) {
                    try await sdk.detectWakeWords(
                        in: .silence(duration: 1, sampleRate: 16_000),
                        configuration: WakeWordConfiguration(phrases: ["hey zorblax"])
                    )
                }
                #expect(error?.code == .invalidConfiguration)
                #expect(error?.message.contains("zorblax") == true)
            }
        }

        @Test("Without a keyword spotter, whisper's transcripts of a sliding window find the phrase")
        func transcriptFallbackOnRealSpeech() async throws {
            let (saying, others) = try Self.recordings()
            let modules = allModules.filter { $0.name != "pocketsphinx" }
            try await withSDK(models: [DefaultModels.sttId], modules: modules) { sdk in
                try await sdk.loadSTTModel(DefaultModels.sttId)
                #expect(await sdk.wakeWordEngine == "transcript")
                let wake = WakeWordConfiguration(phrases: [Self.phrase])
                var found = 0
                for audio in saying.prefix(5)
                where !(try await sdk.detectWakeWords(in: audio, configuration: wake)).isEmpty {
                    found += 1
                }
                #expect(found >= 4, "found in \(found) of 5")
                // The recordings that do not say it, from every speaker but the telephone's.
                for (id, audio) in others.prefix(12) {
                    #expect(try await sdk.detectWakeWords(in: audio, configuration: wake).isEmpty, "\(id)")
                }
            }
        }

        @Test("The voice agent sleeps through a request without the wake phrase and answers the one after it")
        func voiceAgentWakesOnThePhrase() async throws {
            try await withSDK(models: [DefaultModels.llmId] + DefaultModels.speech) { sdk in
                var configuration = VoiceAgentTests.configuration()
                configuration.wakeWord = WakeWordConfiguration(phrases: ["hey computer"])
                try await sdk.initializeVoiceAgent(configuration)
                let audio = try await VoiceAgentTests.fixture(
                    sdk,
                    ["Tell me a joke.", "Hey computer.", "What is the capital of France?"],
                    gap: 1.2
                )
                let events = await VoiceAgentTests.collect(
                    sdk,
                    WAVFileAudioInput(audio: audio, pace: .realTime),
                    AudioRecorderOutput(realTime: true)
                )
                .map(\.0)
                print("wake word events:", events.map(\.name).filter { $0 != "response_token" })
                #expect(events.first == .waitingForWakeWord)
                #expect(events.filter { $0.name == "wake_word" }.count == 1)
                let finals = events.compactMap { if case .transcriptFinal(let text) = $0 { text } else { nil } }
                #expect(finals.count == 1)
                #expect(finals.first.map { words($0).contains("capital") } == true, "\(finals)")
            }
        }
    }
}
