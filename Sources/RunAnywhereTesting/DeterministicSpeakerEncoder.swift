import Foundation
@_spi(Backend) import RunAnywhere

/// The deterministic backend's speaker encoder: a voice is the pitch of the tone that
/// ``DeterministicBackend/speech(for:sampleRate:voice:)`` speaks.
///
/// The vector is a bump on a log-frequency axis around the clip's pitch (from its zero
/// crossings where it is not silent), so the same voice gives the same vector and voices
/// 0 to 3, half an octave or more apart, are nearly orthogonal. A window that straddles
/// two voices lands between them, as with a real encoder.
struct DeterministicSpeakerEncoder: SpeakerEmbeddingService {
    let model: ModelInfo
    let sampleRate = 16_000
    let dimension = 24
    let windowDuration: TimeInterval = 1.0

    /// The pitch of `voice` (0 to 3; others are brought into that range), in Hz.
    static func pitch(voice: Int) -> Double {
        1_000 * pow(1.5, Double(min(max(voice, 0), 3)))
    }

    func embed(_ clips: [[Float]]) async throws -> [[Float]] {
        clips.map(vector)
    }

    func unload() async {}

    private func vector(_ samples: [Float]) -> [Float] {
        let peak = samples.reduce(Float(0)) { max($0, abs($1)) }
        var crossings = 0
        var voiced = 0
        for (previous, next) in zip(samples, samples.dropFirst())
        where abs(next) > 0.05 * peak || abs(previous) > 0.05 * peak {
            voiced += 1
            if (previous < 0) != (next < 0) { crossings += 1 }
        }
        guard peak > 0, voiced > 0 else { return [Float](repeating: 0, count: dimension) }
        let pitch = Double(crossings) / 2 / (Double(voiced) / Double(sampleRate))
        // Bins every sixth of an octave from 500 Hz; a bump a fifth of an octave wide.
        let octave = log2(max(pitch, 1) / 500)
        return VectorMath.normalized(
            (0..<dimension).map { bin in Float(exp(-pow(octave - Double(bin) / 6, 2) / (2 * 0.2 * 0.2))) }
        )
    }
}
