import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `runanywhere voice`: the voice agent over a recording or the microphone.
struct VoiceCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "voice",
        abstract: "Talk to the voice agent: replay a recording through it, or use the microphone."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var models: VoiceModelOptions
    @Option(help: "A WAV recording replayed as the microphone, at real-time pace.") var input: String?
    @Option(help: "Write what the agent said to this WAV file.") var output: String?
    @Flag(help: "Use the sound card's microphone and speaker (ALSA default).") var live = false
    @Flag(help: "Replay the input as fast as possible instead of at real-time pace.") var fast = false
    @Flag(name: .long, help: "Print events as JSON lines, then a summary line.") var json = false

    struct Summary: Encodable {
        var event = "summary"
        var turns: Int
        var interruptions: Int
        var endOfSpeechToFirstAudioMs: Double
        var acousticEndToFirstAudioMs: Double
        var sttMs: Double
        var llmFirstTokenMs: Double
        var ttsFirstChunkMs: Double
        var perTurn: [VoiceTurnTimings]
        var output: String?
    }

    func validate() throws {
        guard live != (input != nil) else { throw ValidationError("Give either --input FILE.wav or --live") }
    }

    func execute() async throws {
        try await CLI.start(global)
        try await RunAnywhere.initializeVoiceAgent(models.configuration())
        let source: any AudioInput
        let sink: AudioRecorderOutput
        let speaker: (any AudioOutput)?
        if live {
            guard ALSAAudioInput.isAvailable() else {
                throw SDKException(
                    .audioDeviceUnavailable,
                    "No microphone: ALSA's default capture device cannot be opened",
                    recovery: "Replay a recording with --input FILE.wav"
                )
            }
            source = ALSAAudioInput()
            sink = AudioRecorderOutput(realTime: false)
            speaker = ALSAAudioOutput()
        } else {
            source = try WAVFileAudioInput(
                url: URL(fileURLWithPath: input!),
                pace: fast ? .asFastAsPossible : .realTime
            )
            sink = AudioRecorderOutput(realTime: !fast)
            speaker = nil
        }
        let out: any AudioOutput = speaker.map { TeeAudioOutput(first: sink, second: $0) } ?? sink
        var results: [VoiceAgentResult] = []
        var interruptions = 0
        for await event in RunAnywhere.streamVoiceAgent(input: source, output: out) {
            if case .turnCompleted(let result) = event { results.append(result) }
            if case .interrupted = event { interruptions += 1 }
            if json { try CLI.printJSON(VoiceEventLine(event)) } else { printHuman(event) }
        }
        if let output, let audio = sink.audio { try WAVFile.write(audio, to: URL(fileURLWithPath: output)) }
        let timings = results.map(\.timings)
        let summary = Summary(
            turns: results.count,
            interruptions: interruptions,
            endOfSpeechToFirstAudioMs: CLI.median(timings.map(\.endOfSpeechToFirstAudioMs)),
            acousticEndToFirstAudioMs: CLI.median(timings.map(\.acousticEndToFirstAudioMs)),
            sttMs: CLI.median(timings.map(\.sttMs)),
            llmFirstTokenMs: CLI.median(timings.map(\.llmFirstTokenMs)),
            ttsFirstChunkMs: CLI.median(timings.map(\.ttsFirstChunkMs)),
            perTurn: timings,
            output: output
        )
        if json { return try CLI.printJSON(summary) }
        print(
            String(
                printf:
                    "%d turn(s), %d interruption(s); median end of speech → first audio %.0f ms (%.0f ms after the agent decided; STT %.0f, LLM first token %.0f, TTS first chunk %.0f)",
                summary.turns,
                interruptions,
                summary.acousticEndToFirstAudioMs,
                summary.endOfSpeechToFirstAudioMs,
                summary.sttMs,
                summary.llmFirstTokenMs,
                summary.ttsFirstChunkMs
            )
        )
    }

    private func printHuman(_ event: VoiceEvent) {
        switch event {
        case .transcriptFinal(let text): print("you:   \(text)")
        case .responseSentence(let text): print("agent: \(text)")
        case .interrupted(let time): print(String(printf: "       (interrupted at %.2f s)", time))
        case .wakeWord(let phrase, let time): print("       (\(phrase) at \(String(printf: "%.2f", time)) s)")
        case .error(let error): CLI.printError("error: \(error)")
        default: break
        }
    }
}

/// The voice agent's models, shared by `voice` and `bench voice`.
struct VoiceModelOptions: ParsableArguments {
    @Option(name: .customLong("stt"), help: "STT model id.") var stt = CLI.Defaults.stt
    @Option(name: .customLong("llm"), help: "LLM id.") var llm = CLI.Defaults.llm
    @Option(
        name: .customLong("tts"),
        help: "Voice model id (default: \(CLI.Defaults.tts) when installed, else the system voice)."
    )
    var tts: String?
    @Option(name: .customLong("vad"), help: "VAD model id, or 'energy' (default: \(CLI.Defaults.vad) when installed).")
    var vad: String?
    @Option(help: "System prompt.") var system = VoiceAgentConfiguration.defaultSystemPrompt
    @Option(name: .customLong("max-tokens"), help: "Longest reply, in tokens.") var maxTokens = 64
    @Option(name: .customLong("llm-threads"), help: "Threads for the LLM (the rest go to speech).") var llmThreads = 1
    @Option(
        name: .customLong("llm-prompt-threads"),
        help: "Threads that evaluate the LLM's prompt, before any speech is synthesized (default: --llm-threads)."
    )
    var llmPromptThreads: Int?
    @Option(name: .customLong("silence"), help: "Silence that ends a turn, in seconds.") var silence = 0.5
    @Flag(name: .customLong("no-barge-in"), help: "Let the agent finish speaking even when interrupted.")
    var noBargeIn = false
    @Flag(name: .customLong("no-partials"), help: "Do not transcribe while the user speaks.") var noPartials = false
    @Flag(
        name: .customLong("no-speculation"),
        help: "Start answering only once the turn is decided, not as soon as the user falls silent."
    )
    var noSpeculation = false
    @Flag(
        name: .customLong("fixed-end-of-turn"),
        help: "End every turn after --silence, whatever the user said (no shorter wait after a finished sentence)."
    )
    var fixedEndOfTurn = false
    @Option(
        name: .customLong("wake-word"),
        help: "Wait for this phrase before each request (pocketsphinx keyword spotting; repeat for several)."
    )
    var wakeWords: [String] = []
    @Option(name: .customLong("wake-word-sensitivity"), help: "From 0 (fewer false wakes) to 1 (fewer misses).")
    var wakeWordSensitivity: Float = 0.5

    func configuration() -> VoiceAgentConfiguration {
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
                ? nil : WakeWordConfiguration(phrases: wakeWords, sensitivity: wakeWordSensitivity)
        )
    }
}

/// One voice event as a JSON line.
struct VoiceEventLine: Encodable {
    var event: String
    var time: Double?
    var text: String?
    var audioSeconds: Double?
    var timings: VoiceTurnTimings?
    var transcript: String?
    var error: String?

    init(_ voiceEvent: VoiceEvent) {
        event = voiceEvent.name
        switch voiceEvent {
        case .listening, .waitingForWakeWord: break
        case .wakeWord(let phrase, let t):
            text = phrase
            time = (t * 1000).rounded() / 1000
        case .speechStarted(let t), .speechEnded(let t), .interrupted(let t): time = (t * 1000).rounded() / 1000
        case .transcriptPartial(let s), .transcriptFinal(let s), .responseToken(let s), .responseSentence(let s):
            text = s
        case .audioChunk(let audio, let sentence):
            audioSeconds = audio.duration
            text = sentence
        case .turnCompleted(let result):
            timings = result.timings
            transcript = result.transcript
            text = result.responseText
        case .error(let e): error = e.description
        }
    }
}

/// Plays to two outputs at once (a recorder and the speaker).
struct TeeAudioOutput: AudioOutput {
    let first: any AudioOutput
    let second: any AudioOutput

    func play(_ buffer: AudioBuffer) async throws(SDKException) {
        try await first.play(buffer)
        try await second.play(buffer)
    }

    func stop() async {
        await first.stop()
        await second.stop()
    }
}
