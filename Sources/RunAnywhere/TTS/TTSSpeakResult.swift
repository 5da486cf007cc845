#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ``RunAnywhere/speak(_:options:output:)`` did.
public struct TTSSpeakResult: Sendable, Equatable {
    /// Seconds of audio played.
    public var duration: TimeInterval
    /// From the call to the first audio handed to the output, in milliseconds.
    public var firstAudioMs: Double
    /// From the call to the end of playback, in milliseconds.
    public var totalMs: Double
    /// Pieces of text synthesized.
    public var chunks: Int
    /// When each word was heard, from the start of playback (see ``TTSOutput/wordTimings``).
    public var wordTimings: [TTSWordTiming] = []
}
