/// One thing the SDK can do, and whether this build, with the modules registered now, can
/// (``RunAnywhereSDK/capabilities()``).
public struct SDKCapability: Sendable, Codable, Equatable {
    /// The capabilities an app may ask for.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// Text generation, chat, structured output and tools (`loadModel`).
        case textGeneration = "text_generation"
        /// Images with text (`loadVLMModel`).
        case vision
        /// Speech to text (`loadSTTModel`).
        case speechRecognition = "speech_recognition"
        /// Text to speech with a model (`loadTTSVoice`) or the system voice.
        case speechSynthesis = "speech_synthesis"
        /// Finding speech in audio (`loadVADModel`).
        case voiceActivityDetection = "voice_activity_detection"
        /// Embedding vectors (`loadEmbeddingModel`), and RAG on them.
        case embeddings
        /// Keyword spotting (`startWakeWord`).
        case wakeWord = "wake_word"
        /// Who spoke when: a speaker encoder and voice activity detection.
        case diarization
        /// The voice agent: speech recognition, text generation, speech synthesis and voice
        /// activity detection together.
        case voiceAgent = "voice_agent"
    }

    /// The capability.
    public var kind: Kind
    /// Whether this build can do it now.
    public var available: Bool
    /// The engines that serve it, best first (for a composite one, those of its parts).
    public var providers: [String]
    /// Why it is not available, when it is not.
    public var reason: String?

    enum CodingKeys: String, CodingKey {
        case kind
        case available
        case providers
        case reason
    }
}

extension RunAnywhereSDK {
    /// What this build can do now and what it cannot: for each ``SDKCapability/Kind``, the
    /// engines of the registered modules that serve it, or why none does. An engine whose
    /// native library is missing still shows here; `runanywhere doctor` checks the libraries.
    ///
    /// ```swift
    /// for capability in sdk.capabilities() where !capability.available {
    ///     print(capability.kind.rawValue, capability.reason ?? "")
    /// }
    /// ```
    public func capabilities() -> [SDKCapability] {
        let services = serviceRegistry
        var engines: [SDKCapability.Kind: [String]] = [
            .textGeneration: services.llm.names,
            .vision: services.vlm.names,
            .speechRecognition: services.stt.names,
            .speechSynthesis: services.tts.names + (services.systemTTSFactory.map { [$0.name] } ?? []),
            .voiceActivityDetection: services.vad.names,
            .embeddings: services.embeddings.names,
            .wakeWord: services.wakeWord.names,
        ]
        let parts: [SDKCapability.Kind: [SDKCapability.Kind]] = [
            .diarization: [.voiceActivityDetection],
            .voiceAgent: [.speechRecognition, .textGeneration, .speechSynthesis, .voiceActivityDetection],
        ]
        engines[.diarization] = services.speakerEmbedding.names
        return SDKCapability.Kind.allCases.map { kind in
            let own = engines[kind] ?? []
            let needed = parts[kind] ?? []
            let missing = needed.filter { (engines[$0] ?? []).isEmpty }
            var providers = own
            for part in needed {
                for engine in engines[part] ?? [] where !providers.contains(engine) { providers.append(engine) }
            }
            let lacksOwn = kind != .voiceAgent && own.isEmpty
            var reasons: [String] = []
            if lacksOwn { reasons.append("no registered module offers \(kind.rawValue.replacing("_", with: " "))") }
            if !missing.isEmpty {
                reasons.append(
                    "it needs " + missing.map { $0.rawValue.replacing("_", with: " ") }.joined(separator: ", ")
                )
            }
            return SDKCapability(
                kind: kind,
                available: reasons.isEmpty,
                providers: providers,
                reason: reasons.isEmpty ? nil : reasons.joined(separator: "; ")
            )
        }
    }
}

extension RunAnywhere {
    /// What this build can do now and what it cannot.
    ///
    /// Calls ``RunAnywhereSDK/capabilities()`` on the shared instance.
    public static func capabilities() throws(SDKException) -> [SDKCapability] {
        try sdk().capabilities()
    }
}
