#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Voice activity from loudness alone: the fallback when no VAD model is loaded.
///
/// A frame's probability rises smoothly (logistic, 3 dB wide) as its RMS level exceeds
/// the larger of a fixed floor and the tracked noise floor plus `marginDecibels`. The
/// noise floor follows quiet frames quickly and loud ones slowly, so steady background
/// noise stops counting as speech after a few seconds while speech itself does not raise
/// the floor much.
package actor EnergyVADService: VADService {
    package nonisolated let frameSize = 512
    package nonisolated let sampleRate = 16_000
    private var floorDecibels = VADConfiguration().energyFloorDecibels
    private let marginDecibels: Float = 10
    private var noiseFloor: Float?

    /// Creates a detector with the default floor; ``configure(_:)`` changes it.
    package init() {}

    package func configure(_ configuration: VADConfiguration) async throws {
        floorDecibels = configuration.energyFloorDecibels
    }

    package func speechProbabilities(_ samples: [Float]) async throws -> [Float] {
        stride(from: 0, to: samples.count - frameSize + 1, by: frameSize).map { start in
            probability(PCMAudio.decibels(rms: PCMAudio.rms(samples[start..<start + frameSize])))
        }
    }

    private func probability(_ level: Float) -> Float {
        let level = max(level, -120)
        let floor = noiseFloor ?? level
        // Quiet frames pull the floor down at once; loud ones push it up by 0.5% per frame.
        noiseFloor = level < floor ? floor + (level - floor) * 0.5 : floor + (level - floor) * 0.005
        let threshold = max(floorDecibels, (noiseFloor ?? level) + marginDecibels)
        return 1 / (1 + exp(-(level - threshold) / 3))
    }

    package func reset() async { noiseFloor = nil }
    package func unload() async {}
}
