#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A stretch of speech found in a recording.
public struct SpeechSegment: Sendable, Codable, Equatable {
    /// Start, in seconds.
    public var start: TimeInterval
    /// End, in seconds.
    public var end: TimeInterval
    /// Length, in seconds.
    public var duration: TimeInterval { end - start }
}
