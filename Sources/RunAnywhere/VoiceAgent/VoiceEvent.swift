#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ``RunAnywhere/streamVoiceAgent(input:output:)`` reports, in order.
///
/// A turn runs: `speechStarted` → (`transcriptPartial`…) → `speechEnded` →
/// `transcriptFinal` → (`responseToken`… `responseSentence` → `audioChunk`)… →
/// `turnCompleted`; `interrupted` replaces the rest of a turn the user talks over. With a
/// wake word, `waitingForWakeWord` comes first and `wakeWord` opens each request.
public enum VoiceEvent: Sendable, Equatable {
    /// The agent is waiting for speech.
    case listening
    /// The agent hears nothing but the wake phrase until it is said.
    case waitingForWakeWord
    /// The wake phrase ended at `time` seconds into the input: the agent listens.
    case wakeWord(phrase: String, time: TimeInterval)
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
    case audioChunk(PCMAudio, sentence: String)
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
        case .waitingForWakeWord: "waiting_for_wake_word"
        case .wakeWord: "wake_word"
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
