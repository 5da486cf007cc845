import Foundation

extension RunAnywhere {
    /// Loads the voice agent's models (checking first that each is registered) and starts
    /// a fresh conversation.
    ///
    /// ```swift
    /// try await RunAnywhere.initializeVoiceAgent(VoiceAgentConfiguration(
    ///     sttModelId: "whisper-tiny-en", llmModelId: "smollm2-135m-instruct",
    ///     ttsModelId: "piper-en-us-joe-medium", vadModelId: "silero-vad"))
    /// for await event in RunAnywhere.streamVoiceAgent(input: ALSAAudioInput(), output: ALSAAudioOutput()) {
    ///     if case .transcriptFinal(let text) = event { print("you:", text) }
    /// }
    /// ```
    ///
    /// - Throws: `.modelNotFound` / `.modelFileNotFound` naming the missing component,
    ///   `.invalidInput`, and what loading a model throws.
    public static func initializeVoiceAgent(_ configuration: VoiceAgentConfiguration) async throws(SDKException) {
        try await runtime().voiceAgent.initialize(configuration)
    }

    /// Builds the voice agent from the models already loaded (STT and LLM required; the
    /// system voice and the energy VAD stand in for missing TTS and VAD models).
    public static func initializeVoiceAgentWithLoadedModels(_ template: VoiceAgentConfiguration? = nil) async throws(SDKException) {
        try await runtime().voiceAgent.initializeWithLoadedModels(template: template)
    }

    /// Which model each component of the voice agent holds.
    public static func getVoiceAgentComponentStates() async throws(SDKException) -> VoiceAgentComponentStates {
        try await runtime().voiceAgent.componentStates()
    }

    /// The conversation so far (user and assistant turns).
    public static func voiceAgentConversation() async throws(SDKException) -> [ChatMessage] {
        try await runtime().voiceAgent.conversation
    }

    /// One turn on a recorded utterance: transcribe, answer, synthesize.
    ///
    /// - Throws: `.notInitialized` before ``initializeVoiceAgent(_:)``, `.invalidAudio`,
    ///   and what the components throw.
    public static func processVoiceTurn(_ audio: AudioBuffer) async throws(SDKException) -> VoiceAgentResult {
        let agent = try runtime().voiceAgent
        let result = try await agent.runTurn(audio, output: nil, endOfSpeech: .now, silenceWait: 0) { _ in }
        return result ?? VoiceAgentResult(transcript: "", responseText: "", audio: AudioBuffer(samples: [], sampleRate: 16_000),
                                          timings: VoiceTurnTimings())
    }

    /// ``processVoiceTurn(_:)`` on WAV bytes or raw 16 kHz PCM16.
    public static func processVoiceTurn(audio: Data) async throws(SDKException) -> VoiceAgentResult {
        try await processVoiceTurn(decodeAudio(audio, sampleRate: 16_000))
    }

    /// A live conversation: reads `input` continuously, answers each utterance through
    /// `output`, sentence by sentence while the reply is generated, and stops when the
    /// user talks over it (with barge-in on). The stream ends when the input ends and the
    /// last turn is done; cancelling the iteration stops everything.
    public static func streamVoiceAgent(input: any AudioInput, output: any AudioOutput) -> AsyncStream<VoiceEvent> {
        guard let runtime = try? runtime() else {
            return AsyncStream { continuation in
                continuation.yield(.error(SDKException(.notInitialized, "The SDK is not initialized")))
                continuation.finish()
            }
        }
        return VoiceSession(agent: runtime.voiceAgent, stt: runtime.stt, vad: runtime.vad).run(input: input, output: output)
    }

    /// Unloads the voice agent's models and forgets the conversation.
    public static func cleanupVoiceAgent() async {
        guard let runtime = try? runtime() else { return }
        await runtime.voiceAgent.cleanup()
    }
}
