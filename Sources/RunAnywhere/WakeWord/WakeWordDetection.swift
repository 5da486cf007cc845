#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A wake phrase heard in a stream.
public struct WakeWordDetection: Sendable, Codable, Equatable {
    /// The phrase, as configured.
    public var phrase: String
    /// Where the phrase ended, in seconds from the start of the stream.
    public var time: TimeInterval
    /// The engine that heard it: `pocketsphinx`, or `transcript` for the fallback that
    /// reads speech-to-text transcripts.
    public var engine: String

    /// Creates a detection.
    public init(phrase: String, time: TimeInterval, engine: String) {
        self.phrase = phrase
        self.time = time
        self.engine = engine
    }
}
