#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Captures audio from an ALSA device as 16-bit mono (or `channels`) at `sampleRate`.
public struct ALSAAudioInput: AudioInput {
    /// The ALSA device name, e.g. `default`.
    public let device: String
    /// Capture rate in Hz.
    public let sampleRate: Int
    /// Captured channels.
    public let channels: Int

    /// Describes a capture; the device is opened when ``chunks(duration:)`` is iterated.
    public init(device: String = "default", sampleRate: Int = 16_000, channels: Int = 1) {
        self.device = device
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// Whether `device` can be opened for capture on this machine.
    public static func isAvailable(device: String = "default") -> Bool {
        guard let alsa = ALSALibrary.shared,
            let pcm = try? alsa.openPCM(device: device, capture: true, sampleRate: 16_000, channels: 1)
        else {
            return false
        }
        _ = alsa.close(pcm)
        return true
    }

    /// Opens the device and captures until the iteration ends; fails with
    /// `.audioDeviceUnavailable` when the device cannot be opened or capture breaks.
    public func chunks(duration: TimeInterval) -> AsyncThrowingStream<PCMAudio, any Error> {
        capturedChunks(duration: duration).mapped(\.audio)
    }

    /// The chunks of ``chunks(duration:)``, each dated by the capture thread the moment the
    /// device hands it over, before any wait in the reader's queue.
    public func capturedChunks(duration: TimeInterval) -> AsyncThrowingStream<CapturedAudio, any Error> {
        let (stream, continuation) = AsyncThrowingStream<CapturedAudio, any Error>.makeStream()
        let stop = CancellationFlag()
        let (device, rate, channels) = (self.device, sampleRate, self.channels)
        let frames = max(1, Int(duration * Double(rate)))
        // Capture blocks in snd_pcm_readi; it gets a thread of its own, not the Swift pool.
        let capture: @Sendable () -> Void = {
            guard let alsa = ALSALibrary.shared else {
                continuation.finish(throwing: SDKException(.audioDeviceUnavailable, "libasound.so.2 is not installed"))
                return
            }
            let pcm: ALSALibrary.PCM
            do { pcm = try alsa.openPCM(device: device, capture: true, sampleRate: rate, channels: channels) } catch {
                continuation.finish(throwing: error)
                return
            }
            defer { _ = alsa.close(pcm) }
            var samples = [Int16](repeating: 0, count: frames * channels)
            while !stop.isCancelled {
                let read = samples.withUnsafeMutableBytes { alsa.readi(pcm, $0.baseAddress!, UInt(frames)) }
                if read < 0 {
                    if alsa.recover(pcm, Int32(read), 1) != 0 {
                        continuation.finish(
                            throwing: SDKException(
                                .audioDeviceUnavailable,
                                "ALSA capture failed: \(alsa.message(Int32(read)))"
                            )
                        )
                        return
                    }
                    continue
                }
                let audio = PCMAudio(
                    int16: Array(samples[0..<read * channels]),
                    sampleRate: rate,
                    channels: channels
                )
                continuation.yield(CapturedAudio(audio: audio, end: .now))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in stop.cancel() }
        do {
            try NativeThread.detach(name: "alsa-in", capture)
        } catch {
            continuation.finish(throwing: error)
        }
        return stream
    }
}
