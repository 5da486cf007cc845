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
///
/// The frame is fixed per instance (``VADService/frameSize`` is read without awaiting), so a
/// new ``VADConfiguration/frameLength`` takes a new detector: ``resized(to:)``.
package actor EnergyVADService: VADService {
    /// The frame when ``VADConfiguration/frameLength`` is unset: 0.032 s, Silero's window.
    package static let defaultFrameSize = 512
    /// The shortest frame: below 1 ms an RMS level says little.
    package static let minimumFrameSize = 16

    package nonisolated let frameSize: Int
    /// The rate it judges audio at; chunks are converted to it.
    package static let detectorSampleRate = 16_000
    package nonisolated let sampleRate = EnergyVADService.detectorSampleRate
    private var floorDecibels: Float
    private let marginDecibels: Float = 10
    private var noiseFloor: Float?
    /// Share of the gap to a quieter / louder frame's level the noise floor closes per frame.
    /// Tuned as 0.5 and 0.005 for 512-sample frames; rescaled for other frames so the floor
    /// moves as fast per second whatever the frame (and stays exactly as tuned at 512).
    private let fallRate: Float
    private let riseRate: Float

    /// Creates a detector judging frames of `frameSize` samples at 16 kHz (at least
    /// ``minimumFrameSize``), with the default floor; ``configure(_:)`` changes the floor.
    package init(frameSize: Int = EnergyVADService.defaultFrameSize) {
        self.init(frameSize: frameSize, floorDecibels: VADConfiguration().energyFloorDecibels, noiseFloor: nil)
    }

    private init(frameSize: Int, floorDecibels: Float, noiseFloor: Float?) {
        let size = max(Self.minimumFrameSize, frameSize)
        self.frameSize = size
        self.floorDecibels = floorDecibels
        self.noiseFloor = noiseFloor
        // Closing a share r of the gap per 512 samples leaves (1 - r) of it; over n samples, (1 - r)^(n/512).
        let frames = Double(size) / Double(Self.defaultFrameSize)
        self.fallRate = Float(1 - pow(1 - 0.5, frames))
        self.riseRate = Float(1 - pow(1 - 0.005, frames))
    }

    /// The frame, in samples at 16 kHz, that `frameLength` seconds asks for; `nil` means
    /// ``defaultFrameSize``.
    package static func frameSize(for frameLength: TimeInterval?) -> Int {
        guard let frameLength else { return defaultFrameSize }
        return max(minimumFrameSize, Int((frameLength * Double(detectorSampleRate)).rounded()))
    }

    /// A detector with another frame that carries on from this one: same floor, and the noise
    /// floor tracked so far (a level in dB, which does not depend on the frame).
    package func resized(to frameSize: Int) -> EnergyVADService {
        EnergyVADService(frameSize: frameSize, floorDecibels: floorDecibels, noiseFloor: noiseFloor)
    }

    /// Takes the floor; the frame length is applied by the capability, which swaps in a
    /// ``resized(to:)`` detector (a model-backed instance keeps the frame it was made with).
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
        // Quiet frames pull the floor down at once (halfway per 512 samples); loud ones push it
        // up by 0.5% per 512 samples.
        noiseFloor = level < floor ? floor + (level - floor) * fallRate : floor + (level - floor) * riseRate
        let threshold = max(floorDecibels, (noiseFloor ?? level) + marginDecibels)
        return 1 / (1 + exp(-(level - threshold) / 3))
    }

    package func reset() async { noiseFloor = nil }
    package func unload() async {}
}
