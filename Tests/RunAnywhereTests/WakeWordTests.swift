import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import RunAnywhereTesting
import Testing

/// Wake words through the transcript fallback, over the deterministic recognizer: the
/// window logic, matching and the voice agent's sleep and wake, in milliseconds.
@Suite("Wake word")
struct WakeWordTests {
    static let wake = WakeWordConfiguration(phrases: ["hey computer"])

    /// Coded utterances, each followed by `gap` seconds of silence; with where each one ends.
    static func recording(_ utterances: [String], gap: Double = 1) -> (audio: PCMAudio, ends: [Double]) {
        var audio = VoiceAgentTurnTests.silence(0.5)
        var ends: [Double] = []
        for text in utterances {
            audio.append(DeterministicBackend.speech(for: text))
            ends.append(audio.duration)
            audio.append(VoiceAgentTurnTests.silence(gap))
        }
        return (audio, ends)
    }

    @Test(
        "A configuration without phrases, with an empty or repeated phrase, or a sensitivity outside 0...1 is refused"
    )
    func invalidConfigurations() throws {
        let invalid = [
            WakeWordConfiguration(phrases: []),
            WakeWordConfiguration(phrases: ["  ?! "]),
            WakeWordConfiguration(phrases: ["Hey computer", "hey, computer!"]),
            WakeWordConfiguration(phrases: ["hey computer"], sensitivity: 1.5),
            WakeWordConfiguration(phrases: ["hey computer"], sensitivity: .nan),
            WakeWordConfiguration(phrases: ["one two three four five six seven eight nine"]),
        ]
        for configuration in invalid {
            #expect(throws: SDKException.self) { try configuration.validate() }
        }
        try WakeWordConfiguration(phrases: ["Hey, Computer!", "ok robot"], sensitivity: 0).validate()
        #expect(WakeWordConfiguration(phrases: ["Hey, Computer!"]).phraseWords == [["hey", "computer"]])
    }

    @Test("With no keyword spotter and no speech model there is no engine, and listening fails with a typed error")
    func noEngine() async throws {
        try await withDeterministicSDK { sdk in
            #expect(await sdk.wakeWordEngine == nil)
            let error = await #expect(throws: SDKException.self) {
                try await sdk.detectWakeWords(in: Self.recording(["Hey computer."]).audio, configuration: Self.wake)
            }
            #expect(error?.code == .modelNotLoaded)
            var failure: (any Error)?
            do {
                for try await _ in sdk.startWakeWord(
                    input: WAVFileAudioInput(audio: .silence(duration: 1, sampleRate: 16_000)),
                    configuration: Self.wake
                ) {}
            } catch { failure = error }
            #expect((failure as? SDKException)?.code == .modelNotLoaded)
        }
    }

    @Test("The transcript fallback finds each phrase once, dated within a hop after it ends, and nothing else")
    func transcriptFallback() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadSTTModel(DeterministicModels.stt)
            #expect(await sdk.wakeWordEngine == "transcript")
            let (audio, ends) = Self.recording(["Hey computer.", "What time is it?", "Hey, Computer!"])
            let detections = try await sdk.detectWakeWords(in: audio, configuration: Self.wake)
            #expect(detections.map(\.phrase) == ["hey computer", "hey computer"])
            #expect(detections.allSatisfy { $0.engine == "transcript" })
            for (detection, end) in zip(detections, [ends[0], ends[2]]) {
                // The window that first holds the whole phrase ends at the next hop after it
                // (`end` includes the code's 0.15 s of trailing silence).
                #expect(detection.time >= end - 0.15 && detection.time <= end + 0.5, "\(detection.time) vs \(end)")
            }
            // The live stream hears the same.
            var live: [WakeWordDetection] = []
            let input = WAVFileAudioInput(audio: audio, pace: .asFastAsPossible)
            for try await detection in sdk.startWakeWord(input: input, configuration: Self.wake) {
                live.append(detection)
            }
            #expect(live == detections)
        }
    }

    @Test("A word off by one letter counts only at a high sensitivity")
    func nearMissNeedsSensitivity() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadSTTModel(DeterministicModels.stt)
            let audio = Self.recording(["Hey computor."]).audio
            #expect(try await sdk.detectWakeWords(in: audio, configuration: Self.wake).isEmpty)
            let eager = WakeWordConfiguration(phrases: ["hey computer"], sensitivity: 0.9)
            #expect(try await sdk.detectWakeWords(in: audio, configuration: eager).count == 1)
        }
    }

    @Test("The voice agent ignores speech until the wake phrase, answers the request after it, then sleeps again")
    func voiceAgentWaitsForTheWakeWord() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.initializeVoiceAgent(
                VoiceAgentTurnTests.configuration {
                    $0.bargeIn = false
                    $0.wakeWord = Self.wake
                }
            )
            let (audio, ends) = Self.recording(
                ["What time is it?", "Hey computer.", "What is my name?", "Tell me a joke."],
                gap: 1.5
            )
            let events = await VoiceAgentTurnTests.run(sdk, audio)
            #expect(events.first == .waitingForWakeWord)
            #expect(!events.contains { if case .error = $0 { true } else { false } }, "\(events)")
            let woken = events.compactMap {
                if case .wakeWord(let phrase, let time) = $0 { (phrase, time) } else { nil }
            }
            try #require(woken.count == 1)
            #expect(woken[0].0 == "hey computer" && woken[0].1 >= ends[1] - 0.15 && woken[0].1 <= ends[1] + 0.5)
            let finals = events.compactMap { if case .transcriptFinal(let text) = $0 { text } else { nil } }
            #expect(finals == ["What is my name?"])
            // Asleep again after the turn: the last request, without the phrase, is not heard.
            #expect(events.filter { $0 == .waitingForWakeWord }.count >= 2)
            #expect(try await sdk.voiceAgentConversation().map(\.content).first == "What is my name?")
        }
    }

    @Test("Woken but left in silence, the agent goes back to waiting for the phrase")
    func wakeWordTimesOut() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.initializeVoiceAgent(
                VoiceAgentTurnTests.configuration {
                    $0.wakeWord = Self.wake
                    $0.wakeWordTimeout = 1
                }
            )
            var (audio, _) = Self.recording(["Hey computer."], gap: 2)
            audio.append(DeterministicBackend.speech(for: "What is my name?"))
            audio.append(VoiceAgentTurnTests.silence(1.5))
            let events = await VoiceAgentTurnTests.run(sdk, audio)
            #expect(
                events.map(\.name).filter { $0 != "listening" }.prefix(3) == [
                    "waiting_for_wake_word", "wake_word", "waiting_for_wake_word",
                ]
            )
            #expect(!events.contains { if case .transcriptFinal = $0 { true } else { false } }, "\(events)")
        }
    }
}
