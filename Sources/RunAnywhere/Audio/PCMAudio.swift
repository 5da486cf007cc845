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

/// A block of PCM audio: Float32 samples in [-1, 1], interleaved when there is more than
/// one channel.
///
/// Engines want 16 kHz mono for speech recognition and produce 16–24 kHz mono when
/// speaking; `PCMAudio` converts between what a caller has and what an engine wants.
///
/// ```swift
/// let audio = try WAVFile.read(contentsOf: URL(fileURLWithPath: "question.wav"))
/// let speech = audio.mono().resampled(to: 16_000)
/// print(speech.duration, "s at", speech.rmsDecibels, "dBFS")
/// ```
public struct PCMAudio: Sendable, Equatable {
    /// Interleaved samples, nominally in [-1, 1].
    public var samples: [Float]
    /// Frames per second.
    public var sampleRate: Int
    /// Interleaved channels (1 = mono).
    public var channels: Int

    /// Wraps Float32 samples.
    public init(samples: [Float], sampleRate: Int, channels: Int = 1) {
        self.samples = samples
        self.sampleRate = sampleRate
        self.channels = max(1, channels)
    }

    /// Converts signed 16-bit samples.
    public init(int16 samples: [Int16], sampleRate: Int, channels: Int = 1) {
        self.init(samples: samples.map { Float($0) / 32768 }, sampleRate: sampleRate, channels: channels)
    }

    /// Reads little-endian signed 16-bit PCM bytes. A trailing odd byte is ignored.
    public init(pcm16 data: Data, sampleRate: Int, channels: Int = 1) {
        let count = data.count / 2
        var values = [Float](repeating: 0, count: count)
        data.withUnsafeBytes { raw in
            for i in 0..<count {
                let bits = UInt16(raw[2 * i]) | UInt16(raw[2 * i + 1]) << 8
                values[i] = Float(Int16(bitPattern: bits)) / 32768
            }
        }
        self.init(samples: values, sampleRate: sampleRate, channels: channels)
    }

    /// Reads little-endian Float32 PCM bytes.
    public init(float32 data: Data, sampleRate: Int, channels: Int = 1) {
        let count = data.count / 4
        var values = [Float](repeating: 0, count: count)
        data.withUnsafeBytes { raw in
            for i in 0..<count {
                values[i] = Float(bitPattern: raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self).littleEndian)
            }
        }
        self.init(samples: values, sampleRate: sampleRate, channels: channels)
    }

    /// Number of frames (samples per channel).
    public var frameCount: Int { samples.count / channels }

    /// Length in seconds.
    public var duration: TimeInterval { sampleRate > 0 ? Double(frameCount) / Double(sampleRate) : 0 }

    /// Whether there is no audio at all.
    public var isEmpty: Bool { samples.isEmpty }

    /// Samples as signed 16-bit, clipped to the 16-bit range.
    public var int16Samples: [Int16] {
        samples.map { sample in
            let scaled = (sample.isFinite ? sample : 0) * 32767
            return Int16(max(-32768, min(32767, scaled.rounded())))
        }
    }

    /// Samples as little-endian signed 16-bit PCM bytes.
    public var pcm16Data: Data {
        var data = Data(capacity: samples.count * 2)
        for value in int16Samples {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    /// Samples as little-endian Float32 bytes (what ``init(float32:sampleRate:channels:)`` reads).
    public var float32Data: Data {
        var data = Data(capacity: samples.count * 4)
        for sample in samples {
            withUnsafeBytes(of: sample.bitPattern.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    /// The average of the channels, or `self` when already mono.
    public func mono() -> PCMAudio {
        guard channels > 1 else { return self }
        var mixed = [Float](repeating: 0, count: frameCount)
        let scale = 1 / Float(channels)
        for frame in 0..<frameCount {
            var sum: Float = 0
            for channel in 0..<channels { sum += samples[frame * channels + channel] }
            mixed[frame] = sum * scale
        }
        return PCMAudio(samples: mixed, sampleRate: sampleRate, channels: 1)
    }

    /// The same sound at another sample rate (band-limited; see ``AudioResampler``).
    public func resampled(to rate: Int) -> PCMAudio {
        guard rate != sampleRate, !samples.isEmpty else {
            return PCMAudio(samples: samples, sampleRate: rate, channels: channels)
        }
        if channels > 1 {
            // Channels are resampled one by one and re-interleaved.
            var outputs: [[Float]] = []
            for channel in 0..<channels {
                let plane = stride(from: channel, to: samples.count, by: channels).map { samples[$0] }
                outputs.append(AudioResampler.resample(plane, from: sampleRate, to: rate))
            }
            let frames = outputs.map(\.count).min() ?? 0
            var interleaved = [Float](repeating: 0, count: frames * channels)
            for frame in 0..<frames {
                for channel in 0..<channels { interleaved[frame * channels + channel] = outputs[channel][frame] }
            }
            return PCMAudio(samples: interleaved, sampleRate: rate, channels: channels)
        }
        return PCMAudio(samples: AudioResampler.resample(samples, from: sampleRate, to: rate), sampleRate: rate)
    }

    /// Mono at `rate`: what speech engines take.
    public func speechInput(sampleRate rate: Int = 16_000) -> PCMAudio {
        mono().resampled(to: rate)
    }

    /// Root-mean-square level in dB relative to full scale (a full-scale sine is −3 dBFS);
    /// silence is `-infinity`.
    public var rmsDecibels: Float { Self.decibels(rms: Self.rms(samples[...])) }

    /// Peak level in dBFS.
    public var peakDecibels: Float {
        Self.decibels(rms: samples.reduce(0) { max($0, abs($1)) })
    }

    /// How long the buffer ends in silence, in seconds: the audio after the last 20 ms frame
    /// within `range` dB of the loudest frame. All of it when the buffer is silent.
    public func trailingSilence(within range: Float = 35) -> TimeInterval {
        let levels = frameLevels()
        guard let loudest = levels.max(), loudest > -.infinity,
            let last = levels.lastIndex(where: { $0 >= loudest - range })
        else { return duration }
        return max(0, duration - Double(last + 1) * frameLength(0.02))
    }

    /// The level of each frame of `frameDuration` seconds, in dBFS (all channels together;
    /// the last frame may be shorter). Silent frames are `-infinity`.
    public func frameLevels(frameDuration: TimeInterval = 0.02) -> [Float] {
        let frame = max(1, Int(frameDuration * Double(sampleRate))) * channels
        return stride(from: 0, to: samples.count, by: frame).map { start in
            Self.decibels(rms: Self.rms(samples[start..<min(samples.count, start + frame)]))
        }
    }

    /// The length of a frame of ``frameLevels(frameDuration:)``, in seconds, as it is rounded to samples.
    public func frameLength(_ frameDuration: TimeInterval) -> TimeInterval {
        Double(max(1, Int(frameDuration * Double(sampleRate)))) / Double(sampleRate)
    }

    /// RMS of a run of samples.
    public static func rms(_ samples: ArraySlice<Float>) -> Float {
        guard !samples.isEmpty else { return 0 }
        var sum: Double = 0
        for sample in samples { sum += Double(sample) * Double(sample) }
        return Float((sum / Double(samples.count)).squareRoot())
    }

    /// An amplitude as dBFS.
    public static func decibels(rms: Float) -> Float {
        rms > 0 ? 20 * log10(rms) : -.infinity
    }

    /// Consecutive pieces of `frames` frames each; the last may be shorter.
    public func chunks(frames: Int) -> [PCMAudio] {
        let step = max(1, frames) * channels
        return stride(from: 0, to: samples.count, by: step).map { start in
            PCMAudio(
                samples: Array(samples[start..<min(samples.count, start + step)]),
                sampleRate: sampleRate,
                channels: channels
            )
        }
    }

    /// Consecutive pieces of `seconds` each; the last may be shorter.
    public func chunks(duration seconds: TimeInterval) -> [PCMAudio] {
        chunks(frames: max(1, Int((seconds * Double(sampleRate)).rounded())))
    }

    /// The frames between two times in seconds (clamped to the buffer).
    public func slice(from start: TimeInterval, to end: TimeInterval) -> PCMAudio {
        let first = max(0, min(frameCount, Int(start * Double(sampleRate))))
        let last = max(first, min(frameCount, Int(end * Double(sampleRate))))
        return PCMAudio(
            samples: Array(samples[(first * channels)..<(last * channels)]),
            sampleRate: sampleRate,
            channels: channels
        )
    }

    /// `seconds` of silence, one channel.
    public static func silence(seconds: TimeInterval, sampleRate: Int) -> PCMAudio {
        let count = max(0, Int((seconds * Double(sampleRate)).rounded()))
        return PCMAudio(samples: [Float](repeating: 0, count: count), sampleRate: sampleRate)
    }

    /// Adds `other` at the end, converting its rate and channels to this buffer's.
    public mutating func append(_ other: PCMAudio) {
        var converted = other.sampleRate == sampleRate ? other : other.resampled(to: sampleRate)
        if converted.channels != channels {
            converted = converted.mono()
            if channels > 1 {
                converted = PCMAudio(
                    samples: converted.samples.flatMap { Array(repeating: $0, count: channels) },
                    sampleRate: sampleRate,
                    channels: channels
                )
            }
        }
        samples += converted.samples
    }

    /// `seconds` of silence.
    public static func silence(duration seconds: TimeInterval, sampleRate: Int, channels: Int = 1) -> PCMAudio {
        PCMAudio(
            samples: [Float](repeating: 0, count: Int(seconds * Double(sampleRate)) * max(1, channels)),
            sampleRate: sampleRate,
            channels: channels
        )
    }

    /// The buffer scaled by `gain`, clipped to [-1, 1].
    public func scaled(by gain: Float) -> PCMAudio {
        guard gain != 1 else { return self }
        return PCMAudio(
            samples: samples.map { max(-1, min(1, $0 * gain)) },
            sampleRate: sampleRate,
            channels: channels
        )
    }

    /// Checks that the buffer can be given to an engine: a positive rate, at least
    /// `minimumFrames` frames, and only finite samples.
    public func validate(minimumFrames: Int = 1) throws(SDKException) {
        guard sampleRate >= 1000, sampleRate <= 384_000 else {
            throw SDKException(
                .invalidAudio,
                "Unsupported sample rate \(sampleRate) Hz",
                recovery: "Use a rate between 1 kHz and 384 kHz"
            )
        }
        guard !samples.isEmpty else {
            throw SDKException(.invalidAudio, "The audio is empty")
        }
        guard frameCount >= minimumFrames else {
            throw SDKException(
                .invalidAudio,
                "The audio is too short: \(frameCount) frame(s), at least \(minimumFrames) needed"
            )
        }
        if let index = samples.firstIndex(where: { !$0.isFinite }) {
            throw SDKException(
                .invalidAudio,
                "The audio contains a non-finite sample (NaN or infinity) at index \(index)",
                recovery: "Check the source of the audio; a WAV with NaN samples is corrupt"
            )
        }
    }
}
