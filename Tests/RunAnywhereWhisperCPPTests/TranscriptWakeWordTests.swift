import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

/// Wake words without a keyword spotter: whisper transcribes a sliding window.
@Suite("Wake words from whisper's transcripts", .serialized, .wholeMachine, .tags(.realEngine))
struct TranscriptWakeWordTests {
    @Test("Without a keyword spotter, whisper's transcripts of a sliding window find the phrase")
    func transcriptFallbackOnRealSpeech() async throws {
        let (saying, others) = try WakeWordRecordings.load()
        let modules = allModules.filter { $0.name != "pocketsphinx" }
        try await withSDK(models: [DefaultModels.sttId], modules: modules) { sdk in
            try await sdk.loadSTTModel(DefaultModels.sttId)
            #expect(await sdk.wakeWordEngine == "transcript")
            let wake = WakeWordConfiguration(phrases: [WakeWordRecordings.phrase])
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
}
