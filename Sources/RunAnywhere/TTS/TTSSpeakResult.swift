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

extension TTSSpeakResult {
    /// The summary of speaking `output` in one piece (the original SDK's `init(output:)`):
    /// its duration and word timings, one chunk, its synthesis time as both first-audio and
    /// total time.
    public init(output: TTSOutput) {
        self.init(
            duration: output.duration,
            firstAudioMs: output.processingTimeMs,
            totalMs: output.processingTimeMs,
            chunks: 1,
            wordTimings: output.wordTimings
        )
    }
}
