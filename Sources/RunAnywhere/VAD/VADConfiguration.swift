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
    /// For the energy detector: how long each frame it judges is, in seconds (1 ms to 1 s,
    /// rounded to whole samples at 16 kHz); `nil` keeps 512 samples (0.032 s).
    ///
    /// Longer frames smooth over short clicks and cost less; shorter ones place speech edges
    /// more finely. A loaded VAD model (Silero) judges its own fixed frame whatever this says;
    /// ``RunAnywhereSDK/vadFrameLength`` reports the frame actually in use. Changing it
    /// mid-stream keeps the stream going: times and the speech state carry over.
    public var frameLength: TimeInterval?

    /// Creates a configuration; every parameter has a sensible default.
    public init(
        threshold: Float = 0.5,
        minSpeechDuration: TimeInterval = 0.25,
        minSilenceDuration: TimeInterval = 0.5,
        energyFloorDecibels: Float = -50,
        frameLength: TimeInterval? = nil
    ) {
        self.threshold = threshold
        self.minSpeechDuration = minSpeechDuration
        self.minSilenceDuration = minSilenceDuration
        self.energyFloorDecibels = energyFloorDecibels
        self.frameLength = frameLength
    }

    /// The original SDK's frame length in seconds: ``frameLength``, or the energy detector's
    /// default 0.032 s when unset.
    ///
    /// It describes the energy detector's frame; a loaded VAD model such as Silero judges its
    /// own fixed frame, which ``RunAnywhereSDK/vadFrameLength`` reports.
    public var frameLengthSeconds: Float {
        Float(frameLength ?? Double(EnergyVADService.defaultFrameSize) / Double(EnergyVADService.detectorSampleRate))
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
        if let frameLength {
            guard frameLength.isFinite, (0.001...1).contains(frameLength) else {
                throw SDKException(.invalidInput, "frameLength must be between 0.001 and 1 s (got \(frameLength))")
            }
        }
    }
}
