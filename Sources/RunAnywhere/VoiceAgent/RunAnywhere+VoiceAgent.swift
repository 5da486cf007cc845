#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
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
    public func initializeVoiceAgent(_ configuration: VoiceAgentConfiguration) async throws(SDKException) {
        try await runtime().voiceAgent.initialize(configuration)
    }

    /// Builds the voice agent from the models already loaded (STT and LLM required; the
    /// system voice and the energy VAD stand in for missing TTS and VAD models).
    public func initializeVoiceAgentWithLoadedModels(
        _ template: VoiceAgentConfiguration? = nil
    ) async throws(SDKException) {
        try await runtime().voiceAgent.initializeWithLoadedModels(template: template)
    }

    /// Which model each component of the voice agent holds.
    public func getVoiceAgentComponentStates() async throws(SDKException) -> VoiceAgentComponentStates {
        try await runtime().voiceAgent.componentStates()
    }

    /// The conversation so far (user and assistant turns).
    public func voiceAgentConversation() async throws(SDKException) -> [ChatMessage] {
        try await runtime().voiceAgent.conversation
    }

    /// One turn on a recorded utterance: transcribe, answer, synthesize.
    ///
    /// - Throws: `.notInitialized` before ``initializeVoiceAgent(_:)``, `.invalidAudio`,
    ///   and what the components throw.
    public func processVoiceTurn(_ audio: PCMAudio) async throws(SDKException) -> VoiceAgentResult {
        let agent = try runtime().voiceAgent
        // The recording's trailing silence is time the speaker has already waited.
        let silence = audio.trailingSilence()
        let now = ContinuousClock.now
        let gate = TurnGate(
            open: TurnGate.Clock(decided: now, acousticEnd: now - .seconds(silence), silenceWait: silence),
            downstream: { _ in }
        )
        let result = try await agent.runTurn(audio, output: nil, gate: gate)
        return result
            ?? VoiceAgentResult(
                transcript: "",
                responseText: "",
                audio: PCMAudio(samples: [], sampleRate: 16_000),
                timings: VoiceTurnTimings()
            )
    }

    /// ``processVoiceTurn(_:)-(PCMAudio)`` on WAV bytes or raw 16 kHz PCM16.
    public func processVoiceTurn(audio: Data) async throws(SDKException) -> VoiceAgentResult {
        try await processVoiceTurn(decodeAudio(audio, sampleRate: 16_000))
    }

    /// ``processVoiceTurn(audio:)`` under the original SDK's label.
    public func processVoiceTurn(_ audioData: Data) async throws(SDKException) -> VoiceAgentResult {
        try await processVoiceTurn(audio: audioData)
    }

    /// The original SDK's live conversation: ``streamVoiceAgent(input:output:)`` on the
    /// default ALSA capture and playback devices.
    public func streamVoiceAgent() -> AsyncStream<VoiceEvent> {
        streamVoiceAgent(input: ALSAAudioInput(), output: ALSAAudioOutput())
    }

    /// A live conversation: reads `input` continuously, answers each utterance sentence by
    /// sentence while the reply is generated, and stops when the user talks over it (with
    /// barge-in on). The replies' audio is in the events; with
    /// ``VoiceAgentConfiguration/autoPlayTTS`` on, the agent also plays it through `output`.
    /// The stream ends when the input ends and the last turn is done; cancelling the iteration
    /// stops everything.
    public func streamVoiceAgent(input: any AudioInput, output: any AudioOutput) -> AsyncStream<VoiceEvent> {
        let runtime: SDKRuntime
        do {
            runtime = try self.runtime()
        } catch {
            return AsyncStream { continuation in
                continuation.yield(.error(error))
                continuation.finish()
            }
        }
        return VoiceSession(agent: runtime.voiceAgent, vad: runtime.vad, wakeWord: runtime.wakeWord).run(
            input: input,
            output: output
        )
    }

    /// Unloads the voice agent's models and forgets the conversation.
    public func cleanupVoiceAgent() async {
        guard let runtime = try? runtime() else { return }
        await runtime.voiceAgent.cleanup()
    }
}

extension RunAnywhere {
    /// Loads the voice agent's models (checking first that each is registered) and starts
    /// a fresh conversation.
    ///
    /// Calls ``RunAnywhereSDK/initializeVoiceAgent(_:)`` on the shared instance.
    public static func initializeVoiceAgent(_ configuration: VoiceAgentConfiguration) async throws(SDKException) {
        try await sdk().initializeVoiceAgent(configuration)
    }

    /// Builds the voice agent from the models already loaded (STT and LLM required; the
    /// system voice and the energy VAD stand in for missing TTS and VAD models).
    ///
    /// Calls ``RunAnywhereSDK/initializeVoiceAgentWithLoadedModels(_:)`` on the shared instance.
    public static func initializeVoiceAgentWithLoadedModels(
        _ template: VoiceAgentConfiguration? = nil
    ) async throws(SDKException) {
        try await sdk().initializeVoiceAgentWithLoadedModels(template)
    }

    /// Which model each component of the voice agent holds.
    ///
    /// Calls ``RunAnywhereSDK/getVoiceAgentComponentStates()`` on the shared instance.
    public static func getVoiceAgentComponentStates() async throws(SDKException) -> VoiceAgentComponentStates {
        try await sdk().getVoiceAgentComponentStates()
    }

    /// The conversation so far (user and assistant turns).
    ///
    /// Calls ``RunAnywhereSDK/voiceAgentConversation()`` on the shared instance.
    public static func voiceAgentConversation() async throws(SDKException) -> [ChatMessage] {
        try await sdk().voiceAgentConversation()
    }

    /// One turn on a recorded utterance: transcribe, answer, synthesize.
    ///
    /// Calls ``RunAnywhereSDK/processVoiceTurn(_:)-(PCMAudio)`` on the shared instance.
    public static func processVoiceTurn(_ audio: PCMAudio) async throws(SDKException) -> VoiceAgentResult {
        try await sdk().processVoiceTurn(audio)
    }

    /// ``processVoiceTurn(_:)-(PCMAudio)`` on WAV bytes or raw 16 kHz PCM16.
    ///
    /// Calls ``RunAnywhereSDK/processVoiceTurn(audio:)`` on the shared instance.
    public static func processVoiceTurn(audio: Data) async throws(SDKException) -> VoiceAgentResult {
        try await sdk().processVoiceTurn(audio: audio)
    }

    /// ``processVoiceTurn(audio:)`` under the original SDK's label.
    public static func processVoiceTurn(_ audioData: Data) async throws(SDKException) -> VoiceAgentResult {
        try await sdk().processVoiceTurn(audio: audioData)
    }

    /// A live conversation on the shared instance.
    ///
    /// Calls ``RunAnywhereSDK/streamVoiceAgent(input:output:)`` on the shared instance.
    public static func streamVoiceAgent(input: any AudioInput, output: any AudioOutput) -> AsyncStream<VoiceEvent> {
        do {
            return try sdk().streamVoiceAgent(input: input, output: output)
        } catch {
            return AsyncStream { continuation in
                continuation.yield(.error(error))
                continuation.finish()
            }
        }
    }

    /// The original SDK's live conversation: ``streamVoiceAgent(input:output:)`` on the
    /// default ALSA capture and playback devices.
    public static func streamVoiceAgent() -> AsyncStream<VoiceEvent> {
        streamVoiceAgent(input: ALSAAudioInput(), output: ALSAAudioOutput())
    }

    /// Unloads the shared instance's voice agent models and forgets the conversation.
    public static func cleanupVoiceAgent() async {
        await shared?.cleanupVoiceAgent()
    }
}
