#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A chunk of audio from an ``AudioInput`` and when it was captured.
public struct CapturedAudio: Sendable {
    /// The samples.
    public var audio: PCMAudio
    /// When the chunk's last sample was captured.
    public var end: ContinuousClock.Instant

    /// A chunk whose last sample was captured at `end`.
    public init(audio: PCMAudio, end: ContinuousClock.Instant) {
        self.audio = audio
        self.end = end
    }
}
