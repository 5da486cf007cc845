#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// How the user is heard: the language and options of every transcription the agent makes.
    public var sttOptions: STTOptions
    /// When the user is speaking: the speech threshold, the shortest speech that counts and
    /// the silence that ends the user's turn (``VADConfiguration/minSilenceDuration``).
    public var vad: VADConfiguration
    /// Whether the user speaking over the agent stops it and starts a new turn.
    public var bargeIn: Bool
    /// Speech that interrupts the agent, in seconds: shorter than the VAD's
    /// `minSpeechDuration`, so the agent falls silent quickly, while the new turn still
    /// follows the VAD's rules.
    public var bargeInSpeechDuration: TimeInterval = 0.064
    /// Whether the agent plays its replies through the output it was given (the original SDK's
    /// field and default). Off, replies arrive only as ``VoiceEvent/audioChunk(_:sentence:)``
    /// events and in the turn's result, for the app to play, as apps of the original SDK do;
    /// on, the agent plays them, stops them when the user talks over it, and its echo gate
    /// knows what the loudspeaker is saying. Turn it on for a hands-free agent (the CLI does).
    public var autoPlayTTS: Bool
    /// Whether to transcribe while the user is still speaking (partial transcripts).
    public var partialTranscripts: Bool
    /// Audio kept from before the VAD's speech start, in seconds, so the first syllable is not lost.
    public var preRoll: TimeInterval
    /// How long the silence must last before the user's turn is over, depending on what
    /// they said so far.
    public var endOfTurn: EndOfTurnPolicy
    /// Whether the agent starts answering as soon as the user falls silent, before it is sure
    /// they have finished: the transcription, the reply and its first sentence's audio are
    /// prepared during the silence, held back, and dropped without a trace if the user
    /// speaks again.
    public var speculativeTurns: Bool
    /// Whether the agent's own voice, coming back into the microphone from a loudspeaker,
    /// is kept from interrupting it: audio no louder than the echo of what the agent is
    /// playing (at the delay and level the room returns it) counts as silence, and only the
    /// user talking over it interrupts. With headphones it changes nothing.
    public var echoGate: Bool
    /// A phrase to wait for before each request ("hey computer"), or nil to listen all the
    /// time. With one, the agent hears nothing until the phrase is said, takes the request
    /// that follows it as a turn, then waits for the phrase again; saying the phrase while it
    /// answers interrupts it (other speech does not).
    public var wakeWord: WakeWordConfiguration?
    /// After the wake phrase, how long the agent waits for the request to begin before it
    /// goes back to waiting for the phrase, in seconds.
    public var wakeWordTimeout: TimeInterval

    /// The instructions that open a conversation unless the configuration gives others.
    public static let defaultSystemPrompt = "You are a helpful voice assistant. Answer in one or two short sentences."

    /// Short replies on one thread: the other core is left to speech synthesis, which runs
    /// while the reply is still being generated, and to speech recognition.
    ///
    /// The prompt stays on that one thread too. On an idle 2-core machine, evaluating it on
    /// both cores (``LLMGenerationOptions/promptThreads``) brings the first sentence a quarter
    /// sooner, but with one core busy elsewhere it made the first sentence more than twice as
    /// late (`bench voice`): llama.cpp's threads wait for each other at every step, so a
    /// thread that has to share its core holds up the other. Set it where the cores are free.
    public static let defaultGenerationOptions = LLMGenerationOptions(
        maxTokens: 64,
        temperature: 0.3,
        repetitionPenalty: 1.1,
        threads: 1
    )

    /// The agent's own voice-activity settings: speech counts after 0.2 s (a little sooner
    /// than ``VADConfiguration``'s default, so short answers like "yes" are heard) and half a
    /// second of silence ends the turn.
    public static let defaultVAD = VADConfiguration(threshold: 0.5, minSpeechDuration: 0.2, minSilenceDuration: 0.5)

    /// English, which the default speech model (`whisper-tiny-en`) speaks.
    public static let defaultSTTOptions = STTOptions(language: "en")

    /// Creates a configuration; everything but the two core models has a default.
    public init(
        sttModelId: String,
        llmModelId: String,
        ttsModelId: String? = nil,
        vadModelId: String? = nil,
        systemPrompt: String = defaultSystemPrompt,
        generationOptions: LLMGenerationOptions = defaultGenerationOptions,
        ttsOptions: TTSOptions = TTSOptions(),
        sttOptions: STTOptions = defaultSTTOptions,
        vad: VADConfiguration = defaultVAD,
        bargeIn: Bool = true,
        partialTranscripts: Bool = true,
        preRoll: TimeInterval = 0.3,
        endOfTurn: EndOfTurnPolicy = EndOfTurnPolicy(),
        speculativeTurns: Bool = true,
        echoGate: Bool = true,
        wakeWord: WakeWordConfiguration? = nil,
        wakeWordTimeout: TimeInterval = 8,
        autoPlayTTS: Bool = false
    ) {
        self.sttModelId = sttModelId
        self.llmModelId = llmModelId
        self.ttsModelId = ttsModelId
        self.vadModelId = vadModelId
        self.systemPrompt = systemPrompt
        self.generationOptions = generationOptions
        self.ttsOptions = ttsOptions
        self.sttOptions = sttOptions
        self.vad = vad
        self.bargeIn = bargeIn
        self.partialTranscripts = partialTranscripts
        self.preRoll = preRoll
        self.endOfTurn = endOfTurn
        self.speculativeTurns = speculativeTurns
        self.echoGate = echoGate
        self.wakeWord = wakeWord
        self.wakeWordTimeout = wakeWordTimeout
        self.autoPlayTTS = autoPlayTTS
    }

    /// Checks the values.
    public func validate() throws(SDKException) {
        try generationOptions.validate()
        try ttsOptions.validate()
        try sttOptions.validate()
        try vad.validate()
        try endOfTurn.validate()
        try wakeWord?.validate()
        guard wakeWordTimeout > 0, wakeWordTimeout.isFinite else {
            throw SDKException(.invalidInput, "wakeWordTimeout must be above 0 s (got \(wakeWordTimeout))")
        }
        guard vad.minSilenceDuration >= 0.1 else {
            throw SDKException(
                .invalidInput,
                "vad.minSilenceDuration must be at least 0.1 s (got \(vad.minSilenceDuration))"
            )
        }
        guard preRoll >= 0, preRoll <= 2 else { throw SDKException(.invalidInput, "preRoll must be between 0 and 2 s") }
        guard bargeInSpeechDuration > 0, bargeInSpeechDuration <= 2 else {
            throw SDKException(.invalidInput, "bargeInSpeechDuration must be above 0 and at most 2 s")
        }
    }
}

/// The original SDK's name for ``VoiceAgentConfiguration``.
public typealias VoiceAgentConfig = VoiceAgentConfiguration
/// The original SDK's name for ``VoiceAgentConfiguration``.
public typealias VoiceAgentComposeConfig = VoiceAgentConfiguration

/// The original SDK's name for a voice session's configuration: ``VoiceAgentConfiguration``.
public typealias VoiceSessionConfig = VoiceAgentConfiguration

/// The original SDK's name for a voice session's error: ``SDKException``.
public typealias VoiceSessionError = SDKException

extension VoiceAgentConfiguration {
    /// The silence that ends the user's turn, in seconds (the original SDK's name for
    /// ``VADConfiguration/minSilenceDuration`` of ``vad``).
    public var silenceDuration: TimeInterval {
        get { vad.minSilenceDuration }
        set { vad.minSilenceDuration = newValue }
    }
}

extension VoiceAgentConfiguration {
    /// Decodes a configuration; one saved before ``bargeInSpeechDuration`` or ``autoPlayTTS``
    /// existed gets their defaults, so an app's stored settings survive an SDK update.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            sttModelId: try container.decode(String.self, forKey: .sttModelId),
            llmModelId: try container.decode(String.self, forKey: .llmModelId),
            ttsModelId: try container.decodeIfPresent(String.self, forKey: .ttsModelId),
            vadModelId: try container.decodeIfPresent(String.self, forKey: .vadModelId),
            systemPrompt: try container.decode(String.self, forKey: .systemPrompt),
            generationOptions: try container.decode(LLMGenerationOptions.self, forKey: .generationOptions),
            ttsOptions: try container.decode(TTSOptions.self, forKey: .ttsOptions),
            sttOptions: try container.decode(STTOptions.self, forKey: .sttOptions),
            vad: try container.decode(VADConfiguration.self, forKey: .vad),
            bargeIn: try container.decode(Bool.self, forKey: .bargeIn),
            partialTranscripts: try container.decode(Bool.self, forKey: .partialTranscripts),
            preRoll: try container.decode(TimeInterval.self, forKey: .preRoll),
            endOfTurn: try container.decode(EndOfTurnPolicy.self, forKey: .endOfTurn),
            speculativeTurns: try container.decode(Bool.self, forKey: .speculativeTurns),
            echoGate: try container.decode(Bool.self, forKey: .echoGate),
            wakeWord: try container.decodeIfPresent(WakeWordConfiguration.self, forKey: .wakeWord),
            wakeWordTimeout: try container.decode(TimeInterval.self, forKey: .wakeWordTimeout)
        )
        autoPlayTTS = try container.decodeIfPresent(Bool.self, forKey: .autoPlayTTS) ?? autoPlayTTS
        bargeInSpeechDuration =
            try container.decodeIfPresent(TimeInterval.self, forKey: .bargeInSpeechDuration) ?? bargeInSpeechDuration
    }
}
