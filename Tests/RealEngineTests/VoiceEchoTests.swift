import Foundation
import RealEngineTestSupport
import RunAnywhereTesting
import Testing

@_spi(Backend) @testable import RunAnywhere

extension RealEngineTests {
    /// The voice agent in a room where the microphone hears the loudspeaker, as on a laptop
    /// without headphones.
    @Suite("Voice agent echo")
    struct VoiceEchoTests {
        /// Runs the agent in an ``EchoingRoom`` replaying `recording`: every event, with the room.
        static func talk(
            _ sdk: RunAnywhereSDK,
            _ recording: PCMAudio,
            echoGate: Bool,
            interruption: PCMAudio? = nil
        ) async throws -> ([VoiceEvent], EchoingRoom) {
            var configuration = VoiceAgentTests.configuration()
            configuration.generationOptions.maxTokens = 64
            configuration.systemPrompt = "You are a storyteller. Always answer with a long story of several sentences."
            configuration.echoGate = echoGate
            try await sdk.initializeVoiceAgentWithLoadedModels(configuration)
            // The echo about 10 dB under the playback, 80 ms late, with a reflection: a laptop's
            // speakers heard by its own microphone.
            let room = EchoingRoom(
                recording: recording,
                echoDelay: 0.08,
                echoGain: 0.3,
                interruption: interruption,
                afterPlayback: 1.5
            )
            var events: [VoiceEvent] = []
            for await event in sdk.streamVoiceAgent(input: room.microphone, output: room.loudspeaker) {
                events.append(event)
            }
            return (events, room)
        }

        @Test(
            "The agent's own voice coming back through the microphone never interrupts it; a real person talking over it does"
        )
        func echoDoesNotInterrupt() async throws {
            let corpus = try SpeechCorpus.bootstrapped()
            let interruption = try #require(corpus.clips.first { $0.id == "ps-goforward" })
            try await withSDK(models: [DefaultModels.llmId] + DefaultModels.speech) { sdk in
                try await sdk.initializeVoiceAgent(VoiceAgentTests.configuration())
                let question = try await sdk.synthesize("Tell me a long story about a dragon.").audio.speechInput()
                var alone = PCMAudio.silence(duration: 0.5, sampleRate: 16_000)
                alone.append(question)
                alone.append(.silence(duration: 9, sampleRate: 16_000))

                // The echo alone: the agent answers to the end, once.
                let (echoed, room) = try await Self.talk(sdk, alone, echoGate: true)
                let names = echoed.map(\.name)
                print("echo alone:", names.filter { $0 != "response_token" })
                let spoken = room.played.map(\.audio.duration).reduce(0, +)
                #expect(spoken > 2, "the reply lasted \(spoken) s: long enough for its echo to matter")
                #expect(!names.contains("interrupted"))
                #expect(names.filter { $0 == "speech_started" }.count == 1, "the echo opened no utterance")
                let turns = echoed.compactMap { if case .turnCompleted(let r) = $0 { r } else { nil } }
                #expect(turns.count == 1 && turns.first?.interrupted == false)

                // The control: without the gate, the same room makes the agent interrupt itself.
                let (ungated, _) = try await Self.talk(sdk, alone, echoGate: false)
                #expect(
                    ungated.contains { $0.name == "interrupted" },
                    "without the gate the echo interrupts: the room is loud enough to matter"
                )

                // A real person talking over the reply, at the level the reply is played.
                let clip = try WAVFile.read(contentsOf: interruption.file).speechInput()
                let level = PCMAudio.rms(question.samples[...]) / max(1e-6, PCMAudio.rms(clip.samples[...]))
                let person = PCMAudio(samples: clip.samples.map { $0 * level }, sampleRate: 16_000)
                // It starts 1.5 s into the reply, mid-sentence, once the gate has heard enough
                // of the reply to know the room.
                let (events, overlapped) = try await Self.talk(sdk, alone, echoGate: true, interruption: person)
                print("interrupted:", events.map(\.name).filter { $0 != "response_token" })
                let said = try #require(overlapped.interruptionStart, "the reply never lasted long enough")
                let personStart = said + audibleSpan(person).start
                let interruptedAt = try #require(
                    events.compactMap { if case .interrupted(let time) = $0 { time } else { nil } }.first
                )
                print("interrupted at \(interruptedAt) s; the person started at \(personStart) s")
                #expect(
                    interruptedAt > personStart - 0.1 && interruptedAt < personStart + 0.6,
                    "interrupted at \(interruptedAt) s; the person started at \(personStart) s"
                )
                let heard = events.compactMap { if case .transcriptFinal(let text) = $0 { text } else { nil } }
                #expect(heard.contains { words($0).contains("forward") }, "\(heard)")
            }
        }
    }
}
