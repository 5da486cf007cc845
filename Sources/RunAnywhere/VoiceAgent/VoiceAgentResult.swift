#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One voice turn: what was heard, what was answered, and how long each stage took.
public struct VoiceAgentResult: Sendable, Equatable {
    /// What the user said.
    public var transcript: String
    /// What the agent answered.
    public var responseText: String
    /// The spoken answer (empty when there was nothing to answer).
    public var audio: PCMAudio
    /// Per-stage timings.
    public var timings: VoiceTurnTimings
    /// Whether the user interrupted the answer.
    public var interrupted: Bool

    /// Creates a result.
    public init(
        transcript: String,
        responseText: String,
        audio: PCMAudio,
        timings: VoiceTurnTimings,
        interrupted: Bool = false
    ) {
        self.transcript = transcript
        self.responseText = responseText
        self.audio = audio
        self.timings = timings
        self.interrupted = interrupted
    }
}
