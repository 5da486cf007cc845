#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How to speak.
///
/// ```swift
/// let output = try await RunAnywhere.synthesize("Hello!", options: TTSOptions(rate: 1.2, volume: 0.8))
/// ```
public struct TTSOptions: Sendable, Codable, Equatable {
    /// A voice id from ``RunAnywhere/availableTTSVoices()``. `nil` speaks with the loaded
    /// voice model, or with the system voice when none is loaded.
    public var voice: String?
    /// Speaking rate: 1 is the voice's normal speed, 2 twice as fast (0.25–4).
    public var rate: Float
    /// Pitch: 1 is the voice's own, 1.5 a fifth higher (0.5–2).
    public var pitch: Float
    /// Loudness: 1 leaves the voice as it is, 0 is silent (0–2; clipped at full scale).
    public var volume: Float
    /// Whether the text is SSML (``SSMLDocument``; the seed's `useSSML`): its breaks, prosody
    /// and `say-as` apply on every voice, on top of ``rate``, ``pitch`` and ``volume``.
    public var ssml: Bool

    /// Creates options; every parameter has a sensible default.
    public init(voice: String? = nil, rate: Float = 1, pitch: Float = 1, volume: Float = 1, ssml: Bool = false) {
        self.voice = voice
        self.rate = rate
        self.pitch = pitch
        self.volume = volume
        self.ssml = ssml
    }

    /// Decodes options; a missing key takes its default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        voice = try container.decodeIfPresent(String.self, forKey: .voice)
        rate = try container.decodeIfPresent(Float.self, forKey: .rate) ?? 1
        pitch = try container.decodeIfPresent(Float.self, forKey: .pitch) ?? 1
        volume = try container.decodeIfPresent(Float.self, forKey: .volume) ?? 1
        ssml = try container.decodeIfPresent(Bool.self, forKey: .ssml) ?? false
    }

    /// Checks the values; the SDK calls this before any work.
    public func validate() throws(SDKException) {
        guard rate.isFinite, (0.25...4).contains(rate) else {
            throw SDKException(.invalidInput, "rate must be between 0.25 and 4 (got \(rate))")
        }
        guard pitch.isFinite, (0.5...2).contains(pitch) else {
            throw SDKException(.invalidInput, "pitch must be between 0.5 and 2 (got \(pitch))")
        }
        guard volume.isFinite, (0...2).contains(volume) else {
            throw SDKException(.invalidInput, "volume must be between 0 and 2 (got \(volume))")
        }
    }
}
