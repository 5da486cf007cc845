import Foundation
import RealEngineTestSupport
import RunAnywhereTesting
import Testing

@_spi(Backend) @testable import RunAnywhere

extension RealEngineTests {
    /// The voice agent waiting for its wake word (the detectors alone are tested in the
    /// pocketsphinx and whisper.cpp targets).
    @Suite("Wake word")
    struct WakeWordRealTests {
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
