#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// libasound, opened at run time.
///
/// The core links no native library: a machine without ALSA (or an Apple one) still runs
/// everything else, and ALSA devices simply report `.audioDeviceUnavailable`.
final class ALSALibrary: @unchecked Sendable {
    // Immutable after init; the C functions themselves are thread-safe per PCM handle.
    typealias PCM = OpaquePointer
    let open: @convention(c) (UnsafeMutablePointer<PCM?>, UnsafePointer<CChar>, Int32, Int32) -> Int32
    let setParams: @convention(c) (PCM, Int32, Int32, UInt32, UInt32, Int32, UInt32) -> Int32
    let writei: @convention(c) (PCM, UnsafeRawPointer, UInt) -> Int
    let readi: @convention(c) (PCM, UnsafeMutableRawPointer, UInt) -> Int
    let recover: @convention(c) (PCM, Int32, Int32) -> Int32
    let drain: @convention(c) (PCM) -> Int32
    let drop: @convention(c) (PCM) -> Int32
    let prepare: @convention(c) (PCM) -> Int32
    let close: @convention(c) (PCM) -> Int32
    let strerror: @convention(c) (Int32) -> UnsafePointer<CChar>?

    static let streamPlayback: Int32 = 0
    static let streamCapture: Int32 = 1
    static let formatS16LE: Int32 = 2
    static let accessRWInterleaved: Int32 = 3

    /// The library, or `nil` when libasound is not installed.
    static let shared: ALSALibrary? = ALSALibrary()

    private init?() {
        do throws(SDKException) {
            let library = try DynamicLibrary(["libasound.so.2"])
            open = try library.symbol("snd_pcm_open")
            setParams = try library.symbol("snd_pcm_set_params")
            writei = try library.symbol("snd_pcm_writei")
            readi = try library.symbol("snd_pcm_readi")
            recover = try library.symbol("snd_pcm_recover")
            drain = try library.symbol("snd_pcm_drain")
            drop = try library.symbol("snd_pcm_drop")
            prepare = try library.symbol("snd_pcm_prepare")
            close = try library.symbol("snd_pcm_close")
            strerror = try library.symbol("snd_strerror")
        } catch {
            return nil
        }
    }

    func message(_ code: Int32) -> String {
        strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }

    /// Opens `device` for one direction with interleaved 16-bit samples.
    func openPCM(
        device: String,
        capture: Bool,
        sampleRate: Int,
        channels: Int,
        latencyMicroseconds: UInt32 = 100_000
    ) throws(SDKException) -> PCM {
        var pcm: PCM?
        let code = open(&pcm, device, capture ? Self.streamCapture : Self.streamPlayback, 0)
        guard code == 0, let pcm else {
            throw SDKException(
                .audioDeviceUnavailable,
                "Cannot open ALSA device '\(device)' for \(capture ? "capture" : "playback"): \(message(code))",
                recovery: "Check `aplay -L`; on a machine without a sound card write to a WAVFileAudioOutput instead"
            )
        }
        let set = setParams(
            pcm,
            Self.formatS16LE,
            Self.accessRWInterleaved,
            UInt32(channels),
            UInt32(sampleRate),
            1,
            latencyMicroseconds
        )
        guard set == 0 else {
            _ = close(pcm)
            throw SDKException(
                .audioDeviceUnavailable,
                "ALSA device '\(device)' refuses \(sampleRate) Hz × \(channels): \(message(set))"
            )
        }
        return pcm
    }
}
