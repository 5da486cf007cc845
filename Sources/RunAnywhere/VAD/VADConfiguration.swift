import Foundation

/// How voice activity is decided.
///
/// A frame counts as speech when its probability reaches ``threshold``. Speech *starts*
/// once speech frames have lasted ``minSpeechDuration`` (the event is stamped at the
/// first of them) and *ends* once non-speech has lasted ``minSilenceDuration`` (stamped
/// where the silence began).
public struct VADConfiguration: Sendable, Codable, Equatable {
    /// Probability at or above which a frame is speech (0–1).
    public var threshold: Float
    /// Shortest speech that counts, in seconds (shorter bursts are ignored).
    public var minSpeechDuration: TimeInterval
    /// Silence that ends speech, in seconds.
    public var minSilenceDuration: TimeInterval
    /// For the energy detector: frames quieter than this (dBFS) are never speech.
    public var energyFloorDecibels: Float

    /// Creates a configuration; every parameter has a sensible default.
    public init(threshold: Float = 0.5, minSpeechDuration: TimeInterval = 0.25,
                minSilenceDuration: TimeInterval = 0.5, energyFloorDecibels: Float = -50) {
        self.threshold = threshold
        self.minSpeechDuration = minSpeechDuration
        self.minSilenceDuration = minSilenceDuration
        self.energyFloorDecibels = energyFloorDecibels
    }

    /// Checks the values.
    public func validate() throws(SDKException) {
        guard threshold.isFinite, (0...1).contains(threshold) else {
            throw SDKException(.invalidInput, "threshold must be between 0 and 1 (got \(threshold))")
        }
        guard minSpeechDuration >= 0, minSpeechDuration <= 10 else {
            throw SDKException(.invalidInput, "minSpeechDuration must be between 0 and 10 s")
        }
        guard minSilenceDuration >= 0, minSilenceDuration <= 10 else {
            throw SDKException(.invalidInput, "minSilenceDuration must be between 0 and 10 s")
        }
        guard energyFloorDecibels.isFinite, energyFloorDecibels < 0 else {
            throw SDKException(.invalidInput, "energyFloorDecibels must be below 0 dBFS")
        }
    }
}

/// The verdict on one chunk of audio.
public struct VADResult: Sendable, Equatable {
    /// Whether speech is ongoing at the end of the chunk (after the minimum durations).
    public var isSpeech: Bool
    /// The highest frame probability in the chunk.
    public var probability: Float
    /// RMS level of the chunk in dBFS.
    public var energyDecibels: Float
    /// Speech starts and ends that became certain during this chunk.
    public var events: [SpeechActivityEvent]
}

/// Speech starting or ending, at a time in the audio stream.
public struct SpeechActivityEvent: Sendable, Codable, Equatable {
    /// What happened.
    public enum Kind: String, Sendable, Codable {
        case speechStarted = "speech_started"
        case speechEnded = "speech_ended"
    }
    /// What happened.
    public var kind: Kind
    /// Seconds since the stream began (or since the last reset).
    public var time: TimeInterval
}

/// A stretch of speech found in a recording.
public struct SpeechSegment: Sendable, Codable, Equatable {
    /// Start, in seconds.
    public var start: TimeInterval
    /// End, in seconds.
    public var end: TimeInterval
    /// Length, in seconds.
    public var duration: TimeInterval { end - start }
}
