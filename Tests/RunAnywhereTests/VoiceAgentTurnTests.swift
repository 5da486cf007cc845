import Foundation
import RunAnywhereTestSupport
import RunAnywhereTesting
import Synchronization
import Testing

@testable import RunAnywhere

/// The voice agent's turn logic on the deterministic backend: no weights, milliseconds per test.
@Suite("Voice agent turns on the deterministic backend")
struct VoiceAgentTurnTests {
    static func configuration(_ edit: (inout VoiceAgentConfiguration) -> Void = { _ in }) -> VoiceAgentConfiguration {
        var configuration = VoiceAgentConfiguration(
            sttModelId: DeterministicModels.stt,
            llmModelId: DeterministicModels.llm,
            ttsModelId: DeterministicModels.tts,
            vadModelId: DeterministicModels.vad,
            generationOptions: LLMGenerationOptions(maxTokens: 12, temperature: 0, ignoreEndOfSequence: true),
            autoPlayTTS: true
        )
        edit(&configuration)
        return configuration
    }

    static func silence(_ seconds: Double) -> PCMAudio {
        PCMAudio(samples: [Float](repeating: 0, count: Int(seconds * 16_000)), sampleRate: 16_000)
    }

    /// Utterances coded for the deterministic recognizer, each followed by `gap` seconds of silence.
    static func conversation(_ utterances: [String], gap: Double = 1) -> PCMAudio {
        var audio = silence(0.5)
        for text in utterances {
            audio.append(DeterministicBackend.speech(for: text))
            audio.append(silence(gap))
        }
        return audio
    }

    static func run(_ sdk: RunAnywhereSDK, _ audio: PCMAudio) async -> [VoiceEvent] {
        var events: [VoiceEvent] = []
        let input = WAVFileAudioInput(audio: audio, pace: .asFastAsPossible)
        for await event in sdk.streamVoiceAgent(input: input, output: AudioRecorderOutput(realTime: false)) {
            events.append(event)
        }
        return events
    }

    @Test("One recorded turn: the transcript is exact, the reply is spoken, and both join the conversation")
    func oneTurn() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.initializeVoiceAgent(Self.configuration())
            let result = try await sdk.processVoiceTurn(DeterministicBackend.speech(for: "What is my name?"))
            #expect(result.transcript == "What is my name?")
            #expect(!result.responseText.isEmpty)
            #expect(result.audio.duration > 0.5, "the reply was synthesized")
            #expect(!result.interrupted)
            #expect(
                try await sdk.voiceAgentConversation() == [.user("What is my name?"), .assistant(result.responseText)]
            )
        }
    }

    @Test("A live session hears two utterances as two turns, in order, with every event in its place")
    func twoTurnsInOrder() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.initializeVoiceAgent(Self.configuration { $0.bargeIn = false })
            let events = await Self.run(
                sdk,
                Self.conversation(["My dog is called Biscuit.", "What is my dog called?"])
            )
            let finals = events.compactMap { if case .transcriptFinal(let text) = $0 { text } else { nil } }
            #expect(finals == ["My dog is called Biscuit.", "What is my dog called?"])
            let completed = events.compactMap { if case .turnCompleted(let result) = $0 { result } else { nil } }
            #expect(completed.count == 2)
            #expect(!events.contains { if case .error = $0 { true } else { false } }, "\(events)")
            // Each turn: speech started, speech ended, the final transcript, sentences, audio, completion.
            let names = events.map(\.name)
            for turn in 0..<2 {
                let started = try #require(names.indices.filter { names[$0] == "speech_started" }[safe: turn])
                let ended = try #require(names.indices.filter { names[$0] == "speech_ended" }[safe: turn])
                let final = try #require(names.indices.filter { names[$0] == "transcript_final" }[safe: turn])
                let done = try #require(names.indices.filter { names[$0] == "turn_completed" }[safe: turn])
                #expect(started < ended && ended < final && final < done)
            }
            let conversation = try await sdk.voiceAgentConversation()
            #expect(conversation.map(\.role) == [.user, .assistant, .user, .assistant])
            #expect(conversation.first?.content == "My dog is called Biscuit.")
        }
    }

    @Test("With autoPlayTTS off the reply reaches the events and the result but not the output; on, it is played")
    func autoPlayTTSChoosesWhoPlays() async throws {
        try await withDeterministicSDK { sdk in
            for autoPlay in [false, true] {
                try await sdk.initializeVoiceAgent(
                    Self.configuration {
                        $0.bargeIn = false
                        $0.autoPlayTTS = autoPlay
                    }
                )
                let output = AudioRecorderOutput(realTime: false)
                var events: [VoiceEvent] = []
                let input = WAVFileAudioInput(audio: Self.conversation(["What is my name?"]), pace: .asFastAsPossible)
                for await event in sdk.streamVoiceAgent(input: input, output: output) {
                    events.append(event)
                }
                let chunks = events.compactMap { if case .audioChunk(let audio, _) = $0 { audio } else { nil } }
                let result = try #require(
                    events.compactMap { if case .turnCompleted(let result) = $0 { result } else { nil } }.first
                )
                #expect(!chunks.isEmpty, "the reply is in the events either way")
                #expect(result.audio.duration > 0.5)
                #expect(!events.contains { if case .error = $0 { true } else { false } }, "\(events)")
                let played = output.played.map(\.audio.samples)
                #expect(played == (autoPlay ? chunks.map(\.samples) : []), "autoPlayTTS \(autoPlay)")
            }
        }
    }

    @Test(
        "A configuration round-trips through JSON, and one saved before autoPlayTTS existed decodes with the defaults"
    )
    func configurationDecodesOlderJSON() throws {
        var configuration = Self.configuration()
        configuration.bargeInSpeechDuration = 0.1
        let data = try JSONEncoder().encode(configuration)
        #expect(try JSONDecoder().decode(VoiceAgentConfiguration.self, from: data) == configuration)

        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["autoPlayTTS"] = nil
        object["bargeInSpeechDuration"] = nil
        let older = try JSONDecoder().decode(
            VoiceAgentConfiguration.self,
            from: JSONSerialization.data(withJSONObject: object)
        )
        #expect(!older.autoPlayTTS, "the seed's default")
        #expect(!VoiceAgentConfiguration(sttModelId: "s", llmModelId: "l").autoPlayTTS)
        #expect(older.bargeInSpeechDuration == Self.configuration().bargeInSpeechDuration)
        #expect(older.llmModelId == configuration.llmModelId)
    }

    @Test("Silence and noise make no turn")
    func silenceMakesNoTurn() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.initializeVoiceAgent(Self.configuration())
            let events = await Self.run(sdk, Self.silence(3))
            #expect(!events.contains { if case .turnCompleted = $0 { true } else { false } })
            #expect(!events.contains { if case .speechStarted = $0 { true } else { false } })
            #expect(try await sdk.voiceAgentConversation().isEmpty)
        }
    }

    @Test("The agent transcribes with its sttOptions, not a fixed language")
    func sttOptionsReachTheRecognizer() async throws {
        try await withDeterministicSDK { sdk in
            let events = sdk.events.events(for: .stt)
            try await sdk.initializeVoiceAgent(Self.configuration { $0.sttOptions = STTOptions(language: "de") })
            _ = try await sdk.processVoiceTurn(DeterministicBackend.speech(for: "Guten Morgen"))
            for await event in events {
                if case .transcriptionCompleted = event.kind { break }
            }
            #expect(try await sdk.voiceAgentConversation().first?.content == "Guten Morgen")
            var bad = Self.configuration()
            bad.sttOptions.partialInterval = -1
            await #expect(throws: SDKException.self) { try await sdk.initializeVoiceAgent(bad) }
        }
    }

    @Test(
        "A turn answered speculatively in a pause, which the user then talks on through, leaves no event or history",
        .timeLimit(.minutes(1))
    )
    func discardedSpeculationLeavesNoTrace() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.initializeVoiceAgent(Self.configuration())
            // Every language-model event, in the order it is published.
            let log = Mutex<[String]>([])
            let (answered, answer) = AsyncStream.makeStream(of: Void.self)
            let observer = sdk.events.addObserver { event in
                switch event.kind {
                case .generationStarted: log.withLock { $0.append("started") }
                case .generationCompleted:
                    log.withLock { $0.append("completed") }
                    answer.yield()
                default: break
                }
            }
            defer { sdk.events.removeObserver(observer) }
            // 0.1 s of silence inside the utterance (with the code's own padding): the first
            // silent chunk starts a speculative answer; the VAD's end (0.3 s) and the turn's
            // (0.5 s for an unpunctuated transcript) are far off.
            var audio = Self.silence(0.5)
            audio.append(DeterministicBackend.speech(for: "My dog is called"))
            audio.append(Self.silence(0.1))
            let biscuit = audio.duration
            audio.append(DeterministicBackend.speech(for: "Biscuit"))
            audio.append(Self.silence(1.5))
            // The recording stops before "Biscuit" until the speculative answer is complete: a
            // pause of any length on the wall clock that the stream's own time does not see, so
            // the speculation always runs, and the talking on always discards it.
            let input = PausingAudioInput(audio: audio, pauseAt: biscuit) {
                for await _ in answered { return }
            }
            var events: [VoiceEvent] = []
            for await event in sdk.streamVoiceAgent(input: input, output: AudioRecorderOutput(realTime: false)) {
                events.append(event)
            }
            let generations = log.withLock { $0 }
            #expect(Array(generations.prefix(2)) == ["started", "completed"], "the pause's answer ran: \(generations)")
            #expect(generations.filter { $0 == "started" }.count >= 2, "then the real turn's: \(generations)")
            let names = events.map(\.name)
            #expect(names.filter { $0 == "speech_started" }.count == 1, "\(names)")
            #expect(names.filter { $0 == "speech_ended" }.count == 1, "\(names)")
            #expect(names.filter { $0 == "transcript_final" }.count == 1, "\(names)")
            #expect(names.filter { $0 == "turn_completed" }.count == 1, "\(names)")
            let completed = try #require(
                events.compactMap { if case .turnCompleted(let r) = $0 { r } else { nil } }.first
            )
            // Both answers are to the same words, so a leaked one would double the audio.
            let chunks = events.compactMap { if case .audioChunk(let audio, _) = $0 { audio.duration } else { nil } }
            #expect(abs(chunks.reduce(0, +) - completed.audio.duration) < 0.001, "only the real turn's audio")
            #expect(try await sdk.voiceAgentConversation().count == 2)
            #expect(completed.timings.acousticEndToFirstAudioMs >= completed.timings.endOfSpeechToFirstAudioMs)
            #expect(completed.timings.silenceWaitMs >= 300)
        }
    }

    @Test("A recorded turn counts its trailing silence into the latency from the end of speech")
    func recordedTurnCountsTrailingSilence() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.initializeVoiceAgent(Self.configuration())
            var audio = DeterministicBackend.speech(for: "What is my name?")
            audio.append(Self.silence(0.6))
            let result = try await sdk.processVoiceTurn(audio)
            let timings = result.timings
            // 0.6 s plus the code's own 0.15 s of padding.
            #expect(abs(timings.silenceWaitMs - 750) < 25, "\(timings.silenceWaitMs)")
            #expect(
                abs(timings.acousticEndToFirstAudioMs - timings.endOfSpeechToFirstAudioMs - timings.silenceWaitMs) < 1
            )
        }
    }

    @Test("History that outgrows the context is trimmed from the oldest turn, and the newest turn is always kept")
    func historyIsTrimmedToTheContext() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.initializeVoiceAgent(Self.configuration())
            try await sdk.unloadModel()
            try await sdk.loadModel(DeterministicModels.llm, contextLength: 120)
            for index in 0..<12 {
                let said = "Turn number \(index) says quite a few words to fill the small context quickly."
                let result = try await sdk.processVoiceTurn(DeterministicBackend.speech(for: said))
                #expect(result.transcript == said)
            }
            let conversation = try await sdk.voiceAgentConversation()
            #expect(conversation.count >= 2 && conversation.count < 24, "\(conversation.count) messages kept")
            #expect(conversation.count % 2 == 0)
            #expect(conversation.dropLast().last?.content.hasPrefix("Turn number 11") == true)
            #expect(conversation.first?.content.hasPrefix("Turn number 0") == false, "the oldest turns went first")
        }
    }
}

extension Collection {
    subscript(safe index: Index) -> Element? { indices.contains(index) ? self[index] : nil }
}

/// A recording handed over as fast as it is read, except that it stops before the chunk at
/// `pauseAt` seconds until `resume` returns. The pause lasts as long as the test needs on the
/// wall clock, while the stream's own time, by which the voice agent decides, does not move.
private struct PausingAudioInput: AudioInput {
    let audio: PCMAudio
    let pauseAt: TimeInterval
    let resume: @Sendable () async -> Void

    func chunks(duration: TimeInterval) -> AsyncThrowingStream<PCMAudio, any Error> {
        let pieces = audio.chunks(duration: duration)
        let (pauseAt, resume) = (self.pauseAt, self.resume)
        return AsyncThrowingStream { continuation in
            let task = Task {
                var elapsed: TimeInterval = 0
                var paused = false
                for piece in pieces {
                    if !paused, elapsed >= pauseAt - 1e-6 {
                        paused = true
                        await resume()
                    }
                    if Task.isCancelled { break }
                    continuation.yield(piece)
                    elapsed += piece.duration
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
