internal import CSherpa
import Foundation
@_spi(Backend) import RunAnywhere

/// Silero VAD run by sherpa-onnx.
///
/// sherpa's C API reports, after each 512-sample window, whether the detector is inside
/// speech, not the raw probability; so the service runs sherpa with minimum durations
/// below one window (a per-window decision with Silero's own hysteresis) and reports that
/// decision as probability 0 or 1. The SDK's tracker then applies the configured minimum
/// speech and silence durations, exactly as it does for the energy detector.
actor SherpaVADService: VADService {
    nonisolated let frameSize = 512
    nonisolated let sampleRate = 16_000
    private let modelPath: String
    private let worker: WorkerThread
    private var detector: NativeHandle
    private var threshold: Float

    private init(modelPath: String, worker: WorkerThread, detector: NativeHandle, threshold: Float) {
        self.modelPath = modelPath
        self.worker = worker
        self.detector = detector
        self.threshold = threshold
    }

    static func load(model: ModelInfo) async throws(SDKException) -> SherpaVADService {
        _ = try SherpaLibrary.load()
        let path = try model.localFile()
        let worker = WorkerThread(name: "sherpa-vad.\(model.id)")
        let threshold = VADConfiguration().threshold
        do {
            let detector = try await worker.run { try Self.create(path.path, threshold: threshold) }
            return SherpaVADService(modelPath: path.path, worker: worker, detector: detector, threshold: threshold)
        } catch {
            worker.stop()
            throw SDKException.wrap(error, as: .modelLoadFailed, "Loading VAD '\(model.id)' failed")
        }
    }

    private static func create(_ path: String, threshold: Float) throws -> NativeHandle {
        var config = SherpaOnnxVadModelConfig()
        return try path.withCString { model in
            try "cpu".withCString { provider in
                config.silero_vad.model = model
                config.silero_vad.threshold = threshold
                // Zero would mean sherpa's defaults (0.5 s and 0.25 s): ask for less than one window.
                config.silero_vad.min_silence_duration = 0.01
                config.silero_vad.min_speech_duration = 0.01
                config.silero_vad.window_size = 512
                config.silero_vad.max_speech_duration = 30
                config.sample_rate = 16_000
                config.num_threads = 1
                config.provider = provider
                guard let detector = sherpa.SherpaOnnxCreateVoiceActivityDetector(&config, 60) else {
                    throw SDKException(
                        .modelLoadFailed,
                        "sherpa-onnx could not load the Silero VAD model \(path)",
                        recovery: "Use silero_vad.onnx (the half-precision variant is not supported)"
                    )
                }
                return NativeHandle(detector)
            }
        }
    }

    func speechProbabilities(_ samples: [Float]) async throws -> [Float] {
        let detector = self.detector
        let frameSize = self.frameSize
        return try await worker.run {
            var decisions: [Float] = []
            decisions.reserveCapacity(samples.count / frameSize)
            samples.withUnsafeBufferPointer { buffer in
                var offset = 0
                while offset + frameSize <= buffer.count {
                    sherpa.SherpaOnnxVoiceActivityDetectorAcceptWaveform(
                        detector.pointer,
                        buffer.baseAddress! + offset,
                        Int32(frameSize)
                    )
                    decisions.append(sherpa.SherpaOnnxVoiceActivityDetectorDetected(detector.pointer) != 0 ? 1 : 0)
                    // Finished segments carry copies of their samples: drop them at once.
                    while sherpa.SherpaOnnxVoiceActivityDetectorEmpty(detector.pointer) == 0 {
                        sherpa.SherpaOnnxVoiceActivityDetectorPop(detector.pointer)
                    }
                    offset += frameSize
                }
            }
            return decisions
        }
    }

    func configure(_ configuration: VADConfiguration) async throws {
        guard configuration.threshold != threshold else { return }
        let old = detector
        let path = modelPath
        let threshold = configuration.threshold
        detector = try await worker.run {
            let new = try Self.create(path, threshold: threshold)
            sherpa.SherpaOnnxDestroyVoiceActivityDetector(old.pointer)
            return new
        }
        self.threshold = threshold
    }

    func reset() async {
        let detector = self.detector
        _ = try? await worker.run { sherpa.SherpaOnnxVoiceActivityDetectorReset(detector.pointer) }
    }

    func unload() async {
        let detector = self.detector
        _ = try? await worker.run { sherpa.SherpaOnnxDestroyVoiceActivityDetector(detector.pointer) }
        worker.stop()
    }
}
