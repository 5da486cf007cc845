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
    /// For `speechEnded`, how long the speech that ended lasted; 0 for `speechStarted`.
    public var duration: TimeInterval = 0
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

extension SpeechActivityEvent {
    private enum CodingKeys: String, CodingKey {
        case kind, time, duration
    }

    /// Decodes an event; one written without a duration has 0.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(Kind.self, forKey: .kind)
        time = try container.decode(TimeInterval.self, forKey: .time)
        duration = try container.decodeIfPresent(TimeInterval.self, forKey: .duration) ?? 0
    }
}
