#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the time of one voice turn went, in milliseconds.
public struct VoiceTurnTimings: Sendable, Codable, Equatable {
    /// Speech recognition of the user's utterance (the part the turn waited for, when it
    /// was started before the turn).
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
    /// From the decision that the user had finished (or the call, for a single turn) to the
    /// first audio handed to the output.
    public var endOfSpeechToFirstAudioMs: Double = 0
    /// From the last voiced audio to the first audio handed to the output: the gap the user
    /// hears, including the silence waited before deciding the turn was over. For a single
    /// turn, the recording's trailing silence counts as already waited.
    public var acousticEndToFirstAudioMs: Double = 0
    /// How long the session waited in silence before deciding the user had finished.
    public var silenceWaitMs: Double = 0
    /// The whole turn.
    public var totalMs: Double = 0

    /// Creates timings, all zero.
    public init() {}
}
