#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The voice agent: VAD → STT → LLM → TTS over the other capabilities.
///
/// A turn streams: the LLM's tokens are cut into sentences as they come, and each
/// sentence is synthesized and played while the next is still being generated.
/// Conversation history carries across turns, trimmed from the oldest turn so the
/// prompt and the reply fit the LLM's context.
actor VoiceAgentCapability {
    private let stt: STTCapability
    private let llm: LLMCapability
    private let tts: TTSCapability
    private let vad: VADCapability
    private let registry: ModelRegistry
    private(set) var configuration: VoiceAgentConfiguration?
    private var history: [ChatMessage] = []
    private let logger = SDKLogger(category: "VoiceAgent")

    init(stt: STTCapability, llm: LLMCapability, tts: TTSCapability, vad: VADCapability, registry: ModelRegistry) {
        self.stt = stt
        self.llm = llm
        self.tts = tts
        self.vad = vad
        self.registry = registry
    }

    // MARK: Set-up

    func initialize(_ configuration: VoiceAgentConfiguration) async throws(SDKException) {
        try configuration.validate()
        // Every model is checked before anything loads, so a missing one fails fast and clearly.
        let wanted: [(String?, ModelCategory, String)] = [
            (configuration.sttModelId, .speechRecognition, "STT"), (configuration.llmModelId, .llm, "LLM"),
            (configuration.ttsModelId, .speechSynthesis, "TTS"),
            (configuration.vadModelId, .voiceActivityDetection, "VAD"),
        ]
        for (id, category, role) in wanted {
            guard let id else { continue }
            let model: ModelInfo
            do { model = try registry.get(id) } catch {
                throw SDKException(
                    .modelNotFound,
                    "The voice agent's \(role) model '\(id)' is not registered",
                    recovery: "Import or download it first (see `runanywhere models list`)"
                )
            }
            guard model.category == category else {
                throw SDKException(
                    .invalidInput,
                    "'\(id)' is a \(model.category.rawValue) model, not the \(role) model the voice agent needs"
                )
            }
            guard model.isDownloaded else {
                throw SDKException(.modelFileNotFound, "The voice agent's \(role) model '\(id)' has no local files")
            }
        }
        try await stt.load(configuration.sttModelId)
        try await llm.load(configuration.llmModelId, configuration: LLMLoadConfiguration())
        if let id = configuration.ttsModelId { try await tts.load(id) } else { await tts.unload() }
        if let id = configuration.vadModelId { try await vad.load(id) } else { await vad.unload() }
        try await vad.configure(configuration.vad)
        self.configuration = configuration
        history = []
    }

    func initializeWithLoadedModels(template: VoiceAgentConfiguration?) async throws(SDKException) {
        guard let sttModel = await stt.currentModel else {
            throw SDKException(
                .modelNotLoaded,
                "No speech-recognition model is loaded",
                recovery: "Call RunAnywhere.loadSTTModel(_:) first"
            )
        }
        guard let llmModel = await llm.currentModel else {
            throw SDKException(
                .modelNotLoaded,
                "No language model is loaded",
                recovery: "Call RunAnywhere.loadModel(_:) first"
            )
        }
        var configuration = template ?? VoiceAgentConfiguration(sttModelId: sttModel.id, llmModelId: llmModel.id)
        configuration.sttModelId = sttModel.id
        configuration.llmModelId = llmModel.id
        configuration.ttsModelId = await tts.currentModel?.id
        configuration.vadModelId = await vad.currentModel?.id
        try configuration.validate()
        try await vad.configure(configuration.vad)
        self.configuration = configuration
        history = []
    }

    func componentStates() async -> VoiceAgentComponentStates {
        func state(_ model: ModelInfo?, fallback: String? = nil) -> VoiceAgentComponentStates.State {
            if let model { return .loaded(modelId: model.id) }
            return fallback.map { .builtIn($0) } ?? .notLoaded
        }
        return VoiceAgentComponentStates(
            stt: state(await stt.currentModel),
            llm: state(await llm.currentModel),
            tts: state(await tts.currentModel, fallback: "system voice"),
            vad: state(await vad.currentModel, fallback: "energy")
        )
    }

    func cleanup() async {
        configuration = nil
        history = []
        await stt.unload()
        await llm.unload()
        await tts.unload()
        await vad.unload()
    }

    var conversation: [ChatMessage] { history }

    func ready() throws(SDKException) -> VoiceAgentConfiguration {
        guard let configuration else {
            throw SDKException(
                .notInitialized,
                "The voice agent is not initialized",
                recovery: "Call RunAnywhere.initializeVoiceAgent(_:) first"
            )
        }
        return configuration
    }

    private func remember(user: String, assistant: String) {
        history.append(.user(user))
        history.append(.assistant(assistant))
    }

    /// System prompt, the history that fits the context (oldest turns dropped first), and
    /// the new user turn; history that no longer fits is forgotten.
    private func messages(
        for transcript: String,
        configuration: VoiceAgentConfiguration
    ) async throws(SDKException) -> [ChatMessage] {
        let snapshot = history
        let fitted = try await llm.fitConversation(
            system: configuration.systemPrompt,
            history: snapshot,
            user: transcript,
            reserve: configuration.generationOptions.maxTokens
        )
        // The actor may have run another turn meanwhile, which only appends: drop the
        // oldest messages of the snapshot that no longer fit, nothing newer.
        let dropped = snapshot.count - fitted.keptHistory
        if dropped > 0 { history.removeFirst(min(dropped, history.count)) }
        return fitted.messages
    }

    /// Transcribes an utterance with the agent's STT options: the one place the voice agent
    /// hears anything, whether the session wants an early, a partial or a final transcript.
    func transcribe(_ utterance: PCMAudio) async throws(SDKException) -> STTOutput {
        let options = try ready().sttOptions
        return try await stt.transcribe(utterance, options: options)
    }

    // MARK: Turns

    /// One turn on an utterance: transcribe, answer, speak.
    ///
    /// Everything the turn produces goes through `gate`: its events, the audio it plays
    /// through `output` (each sentence as soon as it is synthesized) and the conversation
    /// history. A speculative turn runs behind a closed gate while the user may still go on;
    /// discarding the gate makes it as if the turn never ran. Cancelling the task stops
    /// generation and speaking; the partial answer of a turn that was heard is still
    /// remembered, so the conversation stays coherent.
    ///
    /// `early`, when given, is a transcription of the same utterance started while the
    /// VAD was still waiting out the silence; the turn waits for it instead of starting one.
    /// `previous` is the turn before, whose answer must be in the history first;
    /// `onTranscript` hears the transcript as soon as it is known.
    func runTurn(
        _ utterance: PCMAudio,
        early: Task<STTOutput, any Error>? = nil,
        output: (any AudioOutput)?,
        gate: TurnGate,
        after previous: Task<Void, Never>? = nil,
        onTranscript: @Sendable (String) -> Void = { _ in }
    ) async throws(SDKException) -> VoiceAgentResult? {
        let configuration = try ready()
        var timings = VoiceTurnTimings()
        let emit: @Sendable (VoiceEvent) -> Void = { gate.emit($0) }

        let sttStart = ContinuousClock.now
        let heard: STTOutput
        if let early, let output = try? await early.value {
            heard = output
        } else {
            heard = try await transcribe(utterance)
        }
        // Only the part of recognition the turn had to wait for.
        timings.sttMs = sttStart.duration(to: .now).milliseconds
        let transcript = heard.text.trimmed()
        onTranscript(transcript)
        emit(.transcriptFinal(transcript))
        guard transcript.contains(where: { $0.isLetter || $0.isNumber }), !Task.isCancelled else { return nil }
        await previous?.value

        let messages = try await self.messages(for: transcript, configuration: configuration)
        var options = configuration.generationOptions
        options.systemPrompt = nil
        let (sentences, sentenceSink) = AsyncStream<String>.makeStream()
        let tts = self.tts
        let ttsOptions = configuration.ttsOptions
        let speaker = ReplySpeaker(
            synthesize: { sentence throws(SDKException) in try await tts.synthesize(sentence, options: ttsOptions) },
            output: configuration.autoPlayTTS ? output : nil,
            emit: emit,
            ready: { await gate.wait() }
        )
        // The speaker synthesizes and plays sentences in order while generation goes on.
        let speaking = Task { await speaker.speak(sentences) }

        let llmStart = ContinuousClock.now
        var response = ""
        var splitter = StreamingSentenceSplitter()
        var firstToken: ContinuousClock.Instant?
        var firstSentence: ContinuousClock.Instant?
        func send(_ pieces: [String]) {
            for sentence in pieces {
                if firstSentence == nil { firstSentence = .now }
                emit(.responseSentence(sentence))
                sentenceSink.yield(sentence)
            }
        }
        do {
            for try await event in llm.stream(.messages(messages), options: options) {
                if Task.isCancelled { break }
                guard case .token(let text, let thinking) = event, !thinking else { continue }
                if firstToken == nil { firstToken = .now }
                response += text
                emit(.responseToken(text))
                send(splitter.feed(text))
            }
        } catch {
            sentenceSink.finish()
            speaking.cancel()
            throw SDKException.wrap(error, as: .generationFailed, "The voice agent's reply failed")
        }
        let generated = ContinuousClock.now
        let cancelled = Task.isCancelled
        if !cancelled { send(splitter.finish()) }
        sentenceSink.finish()
        if cancelled { speaking.cancel() }
        let spoken = await withTaskCancellationHandler {
            await speaking.value
        } onCancel: {
            speaking.cancel()
        }
        // A turn nobody heard leaves no trace, not even in the history.
        guard await gate.wait(), let clock = gate.clock else { return nil }
        let end = ContinuousClock.now

        let reply = response.trimmed()
        remember(user: transcript, assistant: reply)
        timings.silenceWaitMs = clock.silenceWait * 1000
        timings.llmFirstTokenMs = firstToken.map { llmStart.duration(to: $0).milliseconds } ?? 0
        timings.llmFirstSentenceMs = firstSentence.map { llmStart.duration(to: $0).milliseconds } ?? 0
        timings.llmMs = llmStart.duration(to: generated).milliseconds
        timings.ttsFirstChunkMs = spoken.firstChunkMs
        timings.ttsMs = spoken.synthesisMs
        if let firstAudio = spoken.firstAudio {
            timings.endOfSpeechToFirstAudioMs = clock.decided.duration(to: firstAudio).milliseconds
            timings.acousticEndToFirstAudioMs = clock.acousticEnd.duration(to: firstAudio).milliseconds
        }
        timings.totalMs = clock.decided.duration(to: end).milliseconds
        let result = VoiceAgentResult(
            transcript: transcript,
            responseText: reply,
            audio: spoken.audio,
            timings: timings,
            interrupted: cancelled || Task.isCancelled
        )
        if !result.interrupted { emit(.turnCompleted(result)) }
        logger.debug("Turn: \(String(printf: "%.0f", timings.endOfSpeechToFirstAudioMs)) ms to first audio")
        return result
    }
}
