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

    func play(_ buffer: PCMAudio) async throws(SDKException) {
        try await first.play(buffer)
        try await second.play(buffer)
    }

    func stop() async {
        await first.stop()
        await second.stop()
    }
}
