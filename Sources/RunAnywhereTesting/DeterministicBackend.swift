import Foundation
@_spi(Backend) import RunAnywhere

extension InferenceFramework {
    /// Models of the deterministic test backend (``DeterministicBackend``).
    public static let deterministic = InferenceFramework("deterministic")
}

/// A backend with no weights and no native engine, for testing apps built on the SDK.
///
/// Every capability answers the same way every time, fast, on any machine:
/// - **LLM**: the reply is a pure function of the prompt, the options and the seed, and
///   honours `maxTokens`, stop sequences, streaming, cancellation, token counts and metrics.
///   Under a GBNF grammar (structured output, tool calling) it writes a random text the
///   grammar accepts, so an app can test those paths without a model.
/// - **STT**: hears the text that ``speech(for:sampleRate:voice:)`` coded into the audio, exactly,
///   and nothing in audio without such a code.
/// - **TTS**: speaks that same code, about 60 ms a character, so transcribing what it says
///   gives the text back.
/// - **VAD**: energy based, the same detector the SDK uses when no VAD model is loaded.
/// - **Embeddings**: bag of words, 256 dimensions: texts that share words are close, texts
///   that share none nearly orthogonal, so retrieval logic can be tested with exact expectations.
/// - **Reranking** (`test-reranker`): a passage scores the share of the query's distinct
///   words it contains.
///
/// ``Timing`` simulates a slow model (a first-token delay, a token rate, processing
/// delays), so an app can test its progress UI and its timeouts.
///
/// ```swift
/// let sdk = try RunAnywhereSDK(home: home, modules: [DeterministicBackend()])
/// try registerDeterministicModels(in: sdk)
/// try await sdk.loadModel("test-llm")
/// let reply = try await sdk.generate("Hello", options: LLMGenerationOptions(maxTokens: 12, seed: 42))
/// try await sdk.loadSTTModel("test-stt")
/// let heard = try await sdk.transcribe(DeterministicBackend.speech(for: "turn on the lights"))
/// assert(heard.text == "turn on the lights")
/// ```
public struct DeterministicBackend: BackendModule {
    /// How slow the deterministic services pretend to be.
    public struct Timing: Sendable, Equatable {
        /// Wait before the first token of every generation.
        public var firstTokenDelay: Duration
        /// Tokens per second after the first; `nil` generates as fast as possible.
        public var tokensPerSecond: Double?
        /// Wait before every transcription returns.
        public var transcriptionDelay: Duration
        /// Wait before every synthesized sentence returns.
        public var synthesisDelay: Duration

        /// Creates a timing; the defaults make everything instant.
        public init(
            firstTokenDelay: Duration = .zero,
            tokensPerSecond: Double? = nil,
            transcriptionDelay: Duration = .zero,
            synthesisDelay: Duration = .zero
        ) {
            self.firstTokenDelay = firstTokenDelay
            self.tokensPerSecond = tokensPerSecond
            self.transcriptionDelay = transcriptionDelay
            self.synthesisDelay = synthesisDelay
        }

        /// No simulated delay at all.
        public static let instant = Timing()

        func waitForFirstToken() async throws {
            if firstTokenDelay > .zero { try await Task.sleep(for: firstTokenDelay) }
        }

        func waitForNextToken() async throws {
            guard let tokensPerSecond, tokensPerSecond > 0 else { return }
            try await Task.sleep(for: .seconds(1 / tokensPerSecond))
        }
    }

    /// The module's name.
    public let name = "deterministic"
    /// The simulated timing.
    public let timing: Timing
    /// Priority of the deterministic providers; they only take models of framework
    /// `deterministic`, so it rarely matters.
    public let priority: Int

    /// Creates the module.
    public init(timing: Timing = .instant, priority: Int = 100) {
        self.timing = timing
        self.priority = priority
    }

    /// The sample rate of the deterministic voice.
    public static let voiceSampleRate = 22_050

    /// Audio that the deterministic speech recognizer transcribes as exactly `text`.
    ///
    /// A 1 kHz tone carries the text's UTF-8 bytes, one bit every 7.5 ms, with 0.15 s of
    /// silence before and after so voice-activity detection finds its start and end. It
    /// survives resampling, a change of volume and a 16-bit WAV round trip.
    ///
    /// Text past 65,535 UTF-8 bytes is cut at the last whole character before that, and a
    /// `sampleRate` outside 8–384 kHz is brought into that range.
    ///
    /// `voice` (0 to 3) picks the speaker: the tone's pitch (1, 1.5, 2.25 or 3.4 kHz, at most
    /// a quarter of `sampleRate` so the code still decodes), which the deterministic speaker
    /// encoder tells apart, so diarization can be tested too.
    public static func speech(for text: String, sampleRate: Int = 16_000, voice: Int = 0) -> PCMAudio {
        SpeechCode.encode(text, sampleRate: sampleRate, carrier: DeterministicSpeakerEncoder.pitch(voice: voice))
    }

    /// Offers LLM, vision-language, STT, TTS, VAD, embedding, reranking and speaker-embedding
    /// services for models of framework `deterministic`.
    public func register(with registry: ServiceRegistry) {
        let timing = self.timing
        func handles(_ category: ModelCategory) -> @Sendable (ModelInfo) -> Bool {
            { $0.framework == .deterministic && $0.category == category }
        }
        registry.registerLLM(name: name, priority: priority, canHandle: handles(.llm)) { model, configuration in
            DeterministicLLMService(model: model, configuration: configuration, timing: timing)
        }
        registry.registerVLM(name: name, priority: priority, canHandle: handles(.vision)) { model, configuration in
            DeterministicLLMService(model: model, configuration: configuration, timing: timing, takesImages: true)
        }
        registry.registerSTT(name: name, priority: priority, canHandle: handles(.speechRecognition)) { model in
            DeterministicSTTService(model: model, timing: timing)
        }
        registry.registerTTS(name: name, priority: priority, canHandle: handles(.speechSynthesis)) { model in
            DeterministicTTSService(model: model, timing: timing)
        }
        registry.registerVAD(name: name, priority: priority, canHandle: handles(.voiceActivityDetection)) { _ in
            EnergyVADService()
        }
        registry.registerEmbeddings(name: name, priority: priority, canHandle: handles(.embedding)) { model, _ in
            DeterministicEmbeddingsService(model: model, isReranker: model.id == DeterministicModels.reranker)
        }
        registry.registerSpeakerEmbedding(name: name, priority: priority, canHandle: handles(.speakerEmbedding)) {
            model in
            DeterministicSpeakerEncoder(model: model)
        }
    }

    /// Describes the backend for diagnostics.
    public func engineInfo() -> EngineInfo {
        EngineInfo(
            name: "deterministic",
            version: RunAnywhere.version,
            available: true,
            details: ["weights": "none"]
        )
    }
}

/// Hears the text coded by ``DeterministicBackend/speech(for:sampleRate:voice:)``.
struct DeterministicSTTService: STTService {
    let model: ModelInfo
    let timing: DeterministicBackend.Timing

    func transcribe(_ audio: PCMAudio, options: STTOptions) async throws -> STTServiceResult {
        if timing.transcriptionDelay > .zero { try await Task.sleep(for: timing.transcriptionDelay) }
        guard let text = SpeechCode.decode(audio), !text.isEmpty else {
            return STTServiceResult(text: "", segments: [], language: options.language ?? "en", confidence: nil)
        }
        let segment = STTSegment(
            text: text,
            start: SpeechCode.padding,
            end: max(SpeechCode.padding, audio.duration - SpeechCode.padding),
            confidence: 1
        )
        return STTServiceResult(text: text, segments: [segment], language: options.language ?? "en", confidence: 1)
    }

    func unload() async {}
}

/// Speaks the code the deterministic recognizer hears; rate and pitch stretch the pauses
/// only, so what it says always stays decodable.
struct DeterministicTTSService: TTSService {
    let model: ModelInfo
    let timing: DeterministicBackend.Timing

    var voices: [TTSVoice] {
        [
            TTSVoice(
                id: model.id,
                name: model.name,
                language: "en-US",
                sampleRate: DeterministicBackend.voiceSampleRate,
                isSystem: false
            )
        ]
    }

    func synthesize(_ text: String, voice: String, options: TTSOptions) async throws -> PCMAudio {
        if timing.synthesisDelay > .zero { try await Task.sleep(for: timing.synthesisDelay) }
        return SpeechCode.encode(
            text,
            sampleRate: DeterministicBackend.voiceSampleRate,
            padding: SpeechCode.padding / Double(options.rate)
        )
    }

    func unload() async {}
}
