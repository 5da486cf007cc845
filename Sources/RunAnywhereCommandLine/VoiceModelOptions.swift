import ArgumentParser
import RunAnywhere

/// The voice agent's models, shared by `voice` and `bench voice`.
package struct VoiceModelOptions: ParsableArguments {
    package init() {}

    @Option(name: .customLong("stt"), help: "STT model id.") package var stt = CLI.Defaults.stt
    @Option(name: .customLong("llm"), help: "LLM id.") package var llm = CLI.Defaults.llm
    @Option(
        name: .customLong("tts"),
        help: "Voice model id (default: \(CLI.Defaults.tts) when installed, else the system voice)."
    )
    package var tts: String?
    @Option(name: .customLong("vad"), help: "VAD model id, or 'energy' (default: \(CLI.Defaults.vad) when installed).")
    package var vad: String?
    @Option(help: "System prompt.") package var system = VoiceAgentConfiguration.defaultSystemPrompt
    @Option(name: .customLong("max-tokens"), help: "Longest reply, in tokens.") package var maxTokens = 64
    @Option(name: .customLong("llm-threads"), help: "Threads for the LLM (the rest go to speech).") package
        var llmThreads = 1
    @Option(
        name: .customLong("llm-prompt-threads"),
        help: "Threads that evaluate the LLM's prompt, before any speech is synthesized (default: --llm-threads)."
    )
    package var llmPromptThreads: Int?
    @Option(name: .customLong("silence"), help: "Silence that ends a turn, in seconds.") package var silence = 0.5
    @Flag(name: .customLong("no-barge-in"), help: "Let the agent finish speaking even when interrupted.")
    package var noBargeIn = false
    @Flag(name: .customLong("no-partials"), help: "Do not transcribe while the user speaks.") package var noPartials =
        false
    @Flag(
        name: .customLong("no-speculation"),
        help: "Start answering only once the turn is decided, not as soon as the user falls silent."
    )
    package var noSpeculation = false
    @Flag(
        name: .customLong("fixed-end-of-turn"),
        help: "End every turn after --silence, whatever the user said (no shorter wait after a finished sentence)."
    )
    package var fixedEndOfTurn = false
    @Option(
        name: .customLong("wake-word"),
        help: "Wait for this phrase before each request (pocketsphinx keyword spotting; repeat for several)."
    )
    package var wakeWords: [String] = []
    @Option(name: .customLong("wake-word-sensitivity"), help: "From 0 (fewer false wakes) to 1 (fewer misses).")
    package var wakeWordSensitivity: Float = 0.5

    package func configuration() -> VoiceAgentConfiguration {
        var vadConfiguration = VoiceAgentConfiguration.defaultVAD
        vadConfiguration.minSilenceDuration = silence
        return VoiceAgentConfiguration(
            sttModelId: stt,
            llmModelId: llm,
            ttsModelId: CLI.model(tts, orDefault: CLI.Defaults.tts),
            vadModelId: vad == "energy" ? nil : CLI.model(vad, orDefault: CLI.Defaults.vad),
            systemPrompt: system,
            generationOptions: LLMGenerationOptions(
                maxTokens: maxTokens,
                temperature: 0.3,
                repetitionPenalty: 1.1,
                threads: llmThreads,
                promptThreads: llmPromptThreads
            ),
            vad: vadConfiguration,
            bargeIn: !noBargeIn,
            partialTranscripts: !noPartials,
            endOfTurn: EndOfTurnPolicy(adaptive: !fixedEndOfTurn),
            speculativeTurns: !noSpeculation,
            wakeWord: wakeWords.isEmpty
                ? nil : WakeWordConfiguration(phrases: wakeWords, sensitivity: wakeWordSensitivity),
            // A command-line agent is hands-free: it speaks its replies itself.
            autoPlayTTS: true
        )
    }
}
