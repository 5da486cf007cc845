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
    /// When the detector reported the event, by the wall clock (the original SDK's field).
    ///
    /// ``time`` places the event in the audio; this places it in the world, e.g. to line it
    /// up with other logs. It plays no part in equality: two events that mark the same point of
    /// the same stream are equal whenever they were computed.
    public var timestamp = Date()

    /// Whether both events mark the same change at the same point of the audio.
    public static func == (lhs: SpeechActivityEvent, rhs: SpeechActivityEvent) -> Bool {
        lhs.kind == rhs.kind && lhs.time == rhs.time && lhs.duration == rhs.duration
    }
}

/// The original SDK's name for ``SpeechActivityEvent/Kind``.
public typealias SpeechActivityKind = SpeechActivityEvent.Kind

extension SpeechActivityEvent.Kind {
    /// Whether the event marks a change between speech and silence: every event here does.
    public var isTransition: Bool { true }
}

extension SpeechActivityEvent {
    private enum CodingKeys: String, CodingKey {
        case kind, time, duration, timestamp
    }

    /// Decodes an event; one written without a duration has 0, one without a timestamp is
    /// stamped when decoded.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(Kind.self, forKey: .kind)
        time = try container.decode(TimeInterval.self, forKey: .time)
        duration = try container.decodeIfPresent(TimeInterval.self, forKey: .duration) ?? 0
        timestamp = try container.decodeIfPresent(Date.self, forKey: .timestamp) ?? Date()
    }
}
