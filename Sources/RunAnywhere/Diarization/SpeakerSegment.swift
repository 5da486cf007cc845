#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A stretch of a recording in which one speaker talks.
///
/// Speakers are numbered from 0 in the order they first speak; the numbers say who is the
/// same person within one recording, not who the person is.
public struct SpeakerSegment: Sendable, Codable, Equatable {
    /// Who talks: 0 for the first voice heard, 1 for the second, and so on.
    public var speaker: Int
    /// Where the stretch starts, in seconds from the start of the recording.
    public var start: TimeInterval
    /// Where it ends, in seconds.
    public var end: TimeInterval

    /// A stretch of `speaker` from `start` to `end` seconds.
    public init(speaker: Int, start: TimeInterval, end: TimeInterval) {
        self.speaker = speaker
        self.start = start
        self.end = end
    }

    /// Its length in seconds.
    public var duration: TimeInterval { end - start }

    /// A label for people: "Speaker 1" for speaker 0.
    public var label: String { "Speaker \(speaker + 1)" }
}
