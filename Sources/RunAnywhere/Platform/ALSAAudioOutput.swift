import Foundation
import Synchronization

/// Plays audio on an ALSA device (`default`, `plughw:0,0`, or `null` for a device that
/// discards everything).
///
/// Writes happen on a thread of their own in blocks of 20 ms, so ``stop()`` takes effect
/// within about one block plus the device's latency.
public final class ALSAAudioOutput: AudioOutput {
    /// The ALSA device name.
    public let device: String
    private let worker: WorkerThread
    private let stopping = CancellationFlag()
    private let state = Mutex<Device>(Device())

    /// The open PCM handle and its format; the handle is only used on `worker`.
    private struct Device: @unchecked Sendable {
        var pcm: ALSALibrary.PCM?
        var rate = 0
        var channels = 0
        var generation = 0
    }

    /// Prepares playback on `device`; the device is opened at the first `play`.
    public init(device: String = "default") {
        self.device = device
        self.worker = WorkerThread(name: "alsa-out")
    }

    /// Whether `device` can be opened for playback on this machine.
    public static func isAvailable(device: String = "default") -> Bool {
        guard let alsa = ALSALibrary.shared, let pcm = try? alsa.openPCM(device: device, capture: false, sampleRate: 16_000, channels: 1) else {
            return false
        }
        _ = alsa.close(pcm)
        return true
    }

    public func play(_ buffer: AudioBuffer) async throws(SDKException) {
        guard let alsa = ALSALibrary.shared else {
            throw SDKException(.audioDeviceUnavailable, "libasound.so.2 is not installed", recovery: "apt-get install libasound2")
        }
        guard !buffer.isEmpty else { return }
        let generation = state.withLock { $0.generation }
        let device = self.device
        let stopping = self.stopping
        do {
            try await worker.run {
                // A stop() issued after this play began wins even if it ran before we got here.
                guard self.state.withLock({ $0.generation }) == generation else { return }
                stopping.reset()
                var current = self.state.withLock { $0 }
                if current.pcm == nil || current.rate != buffer.sampleRate || current.channels != buffer.channels {
                    if let pcm = current.pcm { _ = alsa.close(pcm) }
                    let pcm = try alsa.openPCM(device: device, capture: false, sampleRate: buffer.sampleRate, channels: buffer.channels)
                    current.pcm = pcm
                    current.rate = buffer.sampleRate
                    current.channels = buffer.channels
                    let updated = current
                    self.state.withLock { $0.pcm = updated.pcm; $0.rate = updated.rate; $0.channels = updated.channels }
                }
                guard let pcm = current.pcm else { return }
                let samples = buffer.int16Samples
                let block = max(1, buffer.sampleRate / 50) * buffer.channels
                var offset = 0
                while offset < samples.count, !stopping.isCancelled {
                    let count = min(block, samples.count - offset)
                    let written = samples[offset..<offset + count].withUnsafeBytes { raw in
                        alsa.writei(pcm, raw.baseAddress!, UInt(count / buffer.channels))
                    }
                    if written < 0 {
                        guard alsa.recover(pcm, Int32(written), 1) == 0 else {
                            throw SDKException(.audioDeviceUnavailable, "ALSA playback failed: \(alsa.message(Int32(written)))")
                        }
                        continue
                    }
                    offset += written * buffer.channels
                }
                if stopping.isCancelled {
                    _ = alsa.drop(pcm)
                } else {
                    _ = alsa.drain(pcm)
                }
                _ = alsa.prepare(pcm)
            }
        } catch {
            throw SDKException.wrap(error, as: .audioDeviceUnavailable, "ALSA playback failed")
        }
    }

    public func stop() async {
        state.withLock { $0.generation += 1 }
        stopping.cancel()
    }

    deinit {
        let pcm = state.withLock { $0.pcm }
        if let pcm, let alsa = ALSALibrary.shared { _ = alsa.close(pcm) }
        worker.stop()
    }
}
