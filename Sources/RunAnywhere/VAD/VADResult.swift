#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The verdict on one chunk of audio.
public struct VADResult: Sendable, Equatable {
    /// Whether speech is ongoing at the end of the chunk (after the minimum durations).
    public var isSpeech: Bool
    /// The highest frame probability in the chunk.
    public var probability: Float
    /// RMS level of the chunk in dBFS.
    public var energyDecibels: Float
    /// Speech starts and ends that became certain during this chunk.
    public var events: [SpeechActivityEvent]
    /// How much audio the chunk held, in seconds.
    public var duration: TimeInterval = 0
}
