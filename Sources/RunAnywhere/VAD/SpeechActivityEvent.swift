#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Speech starting or ending, at a time in the audio stream.
public struct SpeechActivityEvent: Sendable, Codable, Equatable {
    /// What happened.
    public enum Kind: String, Sendable, Codable {
        /// Speech began; `time` is where the first speech frame was.
        case speechStarted = "speech_started"
        /// Speech ended; `time` is where the silence began, or the end of the audio when the
        /// input ended during speech.
        case speechEnded = "speech_ended"
    }
    /// What happened.
    public var kind: Kind
    /// Seconds since the stream began (or since the last reset).
    public var time: TimeInterval
}

extension SpeechActivityEvent {
    /// The original SDK's name for ``time``.
    public var timestamp: TimeInterval { time }
}

/// The original SDK's name for ``SpeechActivityEvent/Kind``.
public typealias SpeechActivityKind = SpeechActivityEvent.Kind

extension SpeechActivityEvent.Kind {
    /// Whether the event marks a change between speech and silence: every event here does.
    public var isTransition: Bool { true }
}
