import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// Counts `stop()` calls, so a play queued before a stop does not start after it.
    private let generation = Atomic<Int>(0)
    private let open = OpenDevice()

    /// The open PCM and its format. Only `worker` touches it (and `deinit`, after it).
    private final class OpenDevice: @unchecked Sendable {
        var pcm: ALSALibrary.PCM?
        var rate = 0
        var channels = 0
    }

    /// Prepares playback on `device`; the device is opened at the first `play`.
    public init(device: String = "default") {
        self.device = device
        self.worker = WorkerThread(name: "alsa-out")
    }

    /// Whether `device` can be opened for playback on this machine.
    public static func isAvailable(device: String = "default") -> Bool {
        guard let alsa = ALSALibrary.shared,
            let pcm = try? alsa.openPCM(device: device, capture: false, sampleRate: 16_000, channels: 1)
        else {
            return false
        }
        _ = alsa.close(pcm)
        return true
    }

    /// Plays `buffer` and returns once the device has drained it, or once ``stop()`` is called.
    /// The device is reopened when the sample rate or channel count changes.
    public func play(_ buffer: PCMAudio) async throws(SDKException) {
        guard let alsa = ALSALibrary.shared else {
            throw SDKException(
                .audioDeviceUnavailable,
                "libasound.so.2 is not installed",
                recovery: "apt-get install libasound2"
            )
        }
        guard !buffer.isEmpty else { return }
        let started = generation.load(ordering: .acquiring)
        let device = self.device
        let stopping = self.stopping
        let open = self.open
        do {
            try await worker.run {
                // A stop() issued after this play began wins even if it ran before we got here.
                guard self.generation.load(ordering: .acquiring) == started else { return }
                stopping.reset()
                if open.pcm == nil || open.rate != buffer.sampleRate || open.channels != buffer.channels {
                    if let pcm = open.pcm { _ = alsa.close(pcm) }
                    open.pcm = nil
                    open.pcm = try alsa.openPCM(
                        device: device,
                        capture: false,
                        sampleRate: buffer.sampleRate,
                        channels: buffer.channels
                    )
                    open.rate = buffer.sampleRate
                    open.channels = buffer.channels
                }
                guard let pcm = open.pcm else { return }
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
                            throw SDKException(
                                .audioDeviceUnavailable,
                                "ALSA playback failed: \(alsa.message(Int32(written)))"
                            )
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

    /// Cuts playback short (within one 20 ms block plus the device's latency); a `play`
    /// queued before the stop does not start.
    public func stop() async {
        generation.add(1, ordering: .releasing)
        stopping.cancel()
    }

    deinit {
        worker.stop()
        if let pcm = open.pcm, let alsa = ALSALibrary.shared { _ = alsa.close(pcm) }
    }
}
