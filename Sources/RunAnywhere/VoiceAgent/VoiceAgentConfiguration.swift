import Foundation

/// What the voice agent is made of and how it behaves.
///
/// ```swift
/// try await RunAnywhere.initializeVoiceAgent(VoiceAgentConfiguration(
///     sttModelId: "whisper-tiny-en", llmModelId: "smollm2-135m-instruct",
///     ttsModelId: "piper-en-us-joe-medium", vadModelId: "silero-vad",
///     systemPrompt: "You are a helpful voice assistant. Answer in one short sentence."))
/// ```
public struct VoiceAgentConfiguration: Sendable, Codable, Equatable {
    /// Speech recognition model.
    public var sttModelId: String
    /// Language model.
    public var llmModelId: String
    /// Voice model; `nil` speaks with the system voice.
    public var ttsModelId: String?
    /// Voice-activity model; `nil` uses the energy detector.
    public var vadModelId: String?
    /// Instructions that open every conversation.
    public var systemPrompt: String
    /// How replies are generated.
    public var generationOptions: LLMGenerationOptions
    /// How replies are spoken.
    public var ttsOptions: TTSOptions
    /// Silence that ends the user's turn, in seconds.
    public var silenceDuration: TimeInterval
    /// Shortest speech that counts as the user talking, in seconds.
    public var minSpeechDuration: TimeInterval
    /// Speech probability threshold of the VAD.
    public var vadThreshold: Float
    /// Whether the user speaking over the agent stops it and starts a new turn.
    public var bargeIn: Bool
    /// Speech that interrupts the agent, in seconds: shorter than ``minSpeechDuration``, so
    /// the agent falls silent quickly, while the new turn still follows the VAD's rules.
    public var bargeInSpeechDuration: TimeInterval = 0.064
    /// Whether to transcribe while the user is still speaking (partial transcripts).
    public var partialTranscripts: Bool
    /// Audio kept from before the VAD's speech start, in seconds, so the first syllable is not lost.
    public var preRoll: TimeInterval

    public static let defaultSystemPrompt = "You are a helpful voice assistant. Answer in one or two short sentences."

    /// Short replies on one thread: the other core is left to speech synthesis, which runs
    /// while the reply is still being generated, and to speech recognition.
    public static let defaultGenerationOptions = LLMGenerationOptions(maxTokens: 64, temperature: 0.3, repetitionPenalty: 1.1, threads: 1)

    /// Creates a configuration; everything but the three core models has a default.
    public init(sttModelId: String, llmModelId: String, ttsModelId: String? = nil, vadModelId: String? = nil,
                systemPrompt: String = defaultSystemPrompt,
                generationOptions: LLMGenerationOptions = defaultGenerationOptions,
                ttsOptions: TTSOptions = TTSOptions(), silenceDuration: TimeInterval = 0.5,
                minSpeechDuration: TimeInterval = 0.2, vadThreshold: Float = 0.5, bargeIn: Bool = true,
                partialTranscripts: Bool = true, preRoll: TimeInterval = 0.3) {
        self.sttModelId = sttModelId
        self.llmModelId = llmModelId
        self.ttsModelId = ttsModelId
        self.vadModelId = vadModelId
        self.systemPrompt = systemPrompt
        self.generationOptions = generationOptions
        self.ttsOptions = ttsOptions
        self.silenceDuration = silenceDuration
        self.minSpeechDuration = minSpeechDuration
        self.vadThreshold = vadThreshold
        self.bargeIn = bargeIn
        self.partialTranscripts = partialTranscripts
        self.preRoll = preRoll
    }

    /// The VAD settings this configuration implies.
    var vadConfiguration: VADConfiguration {
        VADConfiguration(threshold: vadThreshold, minSpeechDuration: minSpeechDuration, minSilenceDuration: silenceDuration)
    }

    /// Checks the values.
    public func validate() throws(SDKException) {
        try generationOptions.validate()
        try ttsOptions.validate()
        try vadConfiguration.validate()
        guard silenceDuration >= 0.1 else {
            throw SDKException(.invalidInput, "silenceDuration must be at least 0.1 s (got \(silenceDuration))")
        }
        guard preRoll >= 0, preRoll <= 2 else { throw SDKException(.invalidInput, "preRoll must be between 0 and 2 s") }
    }
}

/// Which models the voice agent holds.
public struct VoiceAgentComponentStates: Sendable, Codable, Equatable {
    /// A component's state.
    public enum State: Sendable, Codable, Equatable {
        case notLoaded
        case loaded(modelId: String)
        /// The built-in fallback (system voice, energy VAD) is in use.
        case builtIn(String)

        /// Whether the component can work.
        public var isReady: Bool { self != .notLoaded }
    }

    public var stt: State
    public var llm: State
    public var tts: State
    public var vad: State

    /// Whether every component can work.
    public var isReady: Bool { stt.isReady && llm.isReady && tts.isReady && vad.isReady }
}
