import Foundation

/// Where the time of one voice turn went, in milliseconds.
public struct VoiceTurnTimings: Sendable, Codable, Equatable {
    /// Speech recognition of the user's utterance.
    public var sttMs: Double = 0
    /// From the start of generation to the first token.
    public var llmFirstTokenMs: Double = 0
    /// From the start of generation to the end of the first sentence.
    public var llmFirstSentenceMs: Double = 0
    /// The whole generation.
    public var llmMs: Double = 0
    /// Synthesis of the first sentence.
    public var ttsFirstChunkMs: Double = 0
    /// Synthesis of all sentences.
    public var ttsMs: Double = 0
    /// From the VAD's end-of-speech decision (or the call, for a single turn) to the first
    /// audio handed to the output.
    public var endOfSpeechToFirstAudioMs: Double = 0
    /// How long the VAD waited in silence before deciding the user had finished.
    public var silenceWaitMs: Double = 0
    /// The whole turn.
    public var totalMs: Double = 0

    public init() {}
}

/// One voice turn: what was heard, what was answered, and how long each stage took.
public struct VoiceAgentResult: Sendable, Equatable {
    /// What the user said.
    public var transcript: String
    /// What the agent answered.
    public var responseText: String
    /// The spoken answer (empty when there was nothing to answer).
    public var audio: AudioBuffer
    /// Per-stage timings.
    public var timings: VoiceTurnTimings
    /// Whether the user interrupted the answer.
    public var interrupted: Bool

    public init(transcript: String, responseText: String, audio: AudioBuffer, timings: VoiceTurnTimings, interrupted: Bool = false) {
        self.transcript = transcript
        self.responseText = responseText
        self.audio = audio
        self.timings = timings
        self.interrupted = interrupted
    }
}

/// What ``RunAnywhere/streamVoiceAgent(input:output:)`` reports, in order.
///
/// A turn runs: `speechStarted` → (`transcriptPartial`…) → `speechEnded` →
/// `transcriptFinal` → (`responseToken`… `responseSentence` → `audioChunk`)… →
/// `turnCompleted`; `interrupted` replaces the rest of a turn the user talks over.
public enum VoiceEvent: Sendable, Equatable {
    /// The agent is waiting for speech.
    case listening
    /// The VAD heard speech begin, at `time` seconds into the input.
    case speechStarted(time: TimeInterval)
    /// The VAD decided the speech ended at `time` (where the silence began).
    case speechEnded(time: TimeInterval)
    /// A transcript of the speech so far.
    case transcriptPartial(String)
    /// The transcript of the whole utterance.
    case transcriptFinal(String)
    /// A piece of the answer, as the LLM produces it.
    case responseToken(String)
    /// A finished sentence of the answer, about to be spoken.
    case responseSentence(String)
    /// Audio of one sentence, handed to the output.
    case audioChunk(AudioBuffer, sentence: String)
    /// The turn is over.
    case turnCompleted(VoiceAgentResult)
    /// The user spoke over the agent at `time`: speaking and generating stopped.
    case interrupted(time: TimeInterval)
    /// Something failed; the session goes on listening.
    case error(SDKException)

    /// A short, stable name such as `speech_started`.
    public var name: String {
        switch self {
        case .listening: "listening"
        case .speechStarted: "speech_started"
        case .speechEnded: "speech_ended"
        case .transcriptPartial: "transcript_partial"
        case .transcriptFinal: "transcript_final"
        case .responseToken: "response_token"
        case .responseSentence: "response_sentence"
        case .audioChunk: "audio_chunk"
        case .turnCompleted: "turn_completed"
        case .interrupted: "interrupted"
        case .error: "error"
        }
    }
}
