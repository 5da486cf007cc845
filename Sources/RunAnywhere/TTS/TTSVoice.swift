#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A voice the SDK can speak with.
public struct TTSVoice: Sendable, Codable, Equatable, Identifiable {
    /// What ``TTSOptions/voice`` takes: a voice model's id, or `espeak-ng:<language>` (e.g.
    /// `espeak-ng:en-us`) for a system voice.
    public var id: String
    /// Display name.
    public var name: String
    /// Language as a BCP-47 tag, e.g. `en-US`.
    public var language: String
    /// Native output rate in Hz.
    public var sampleRate: Int
    /// Whether this is a built-in system voice (no model needed).
    public var isSystem: Bool

    /// Creates a voice description.
    public init(id: String, name: String, language: String, sampleRate: Int, isSystem: Bool) {
        self.id = id
        self.name = name
        self.language = language
        self.sampleRate = sampleRate
        self.isSystem = isSystem
    }
}
