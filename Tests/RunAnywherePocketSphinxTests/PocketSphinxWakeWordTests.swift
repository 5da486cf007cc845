import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

/// pocketsphinx's keyword spotting on recordings of real people.
@Suite("Wake words with pocketsphinx", .serialized, .wholeMachine, .tags(.realEngine))
struct PocketSphinxWakeWordTests {
    @Test("pocketsphinx hears a phrase real people say in the recordings that say it, and not in the others")
    func pocketsphinxOnRealSpeech() async throws {
        let (saying, others) = try WakeWordRecordings.load()
        try #require(saying.count >= 10)
        try await withSDK(models: []) { sdk in
            #expect(await sdk.wakeWordEngine == "pocketsphinx")
            let wake = WakeWordConfiguration(phrases: [WakeWordRecordings.phrase])
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
            for (id, audio) in others where !(try await sdk.detectWakeWords(in: audio, configuration: wake)).isEmpty {
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
}
