#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    public init(
        threshold: Float = 0.5,
        minSpeechDuration: TimeInterval = 0.25,
        minSilenceDuration: TimeInterval = 0.5,
        energyFloorDecibels: Float = -50
    ) {
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
