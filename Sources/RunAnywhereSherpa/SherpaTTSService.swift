internal import CSherpa
import Foundation
@_spi(Backend) import RunAnywhere
import RunAnywhereSystemVoice

/// A Piper (VITS) voice run by sherpa-onnx.
///
/// The voice folder holds the `.onnx` model (with sherpa's metadata), `tokens.txt`
/// (phoneme → id) and, optionally, Piper's `.onnx.json`, whose `espeak.voice` names the
/// phonemizer language. Text goes to espeak-ng for IPA phonemes, clause punctuation is
/// kept, and the codepoints go to sherpa, one sentence per call.
actor SherpaTTSService: TTSService {
    nonisolated let voices: [TTSVoice]
    private let tts: NativeHandle
    private let worker: WorkerThread
    private let language: String
    private let sampleRate: Int

    private init(voice: TTSVoice, tts: NativeHandle, worker: WorkerThread, language: String, sampleRate: Int) {
        self.voices = [voice]
        self.tts = tts
        self.worker = worker
        self.language = language
        self.sampleRate = sampleRate
    }

    static func load(model: ModelInfo) async throws(SDKException) -> SherpaTTSService {
        _ = try SherpaLibrary.load()
        let path = try model.localFile()
        let folder = path.deletingLastPathComponent()
        let tokens = folder.appendingPathComponent("tokens.txt")
        guard FileManager.default.isReadableFile(atPath: tokens.path) else {
            throw SDKException(
                .modelFileNotFound,
                "Voice '\(model.id)' has no tokens.txt next to \(path.lastPathComponent)",
                recovery: "Prepare the voice with scripts/prepare_piper_voice.py and import the folder"
            )
        }
        try Self.checkVoice(model: path, tokens: tokens)
        let language = Self.espeakLanguage(in: folder) ?? "en-us"
        // One thread: VITS gains little from a second one on small machines, and the
        // voice agent needs the other core for speech recognition and the LLM.
        let threads: Int32 = 1
        let worker = WorkerThread(name: "sherpa-tts.\(model.id)")
        do {
            let (handle, rate) = try await worker.run { () throws -> (NativeHandle, Int) in
                var config = SherpaOnnxOfflineTtsConfig()
                return try path.path.withCString { modelPath in
                    try tokens.path.withCString { tokensPath in
                        try "cpu".withCString { provider in
                            try "".withCString { empty in
                                config.model.vits.model = modelPath
                                config.model.vits.tokens = tokensPath
                                config.model.vits.lexicon = empty
                                config.model.vits.data_dir = empty
                                config.model.vits.noise_scale = 0.667
                                config.model.vits.noise_scale_w = 0.8
                                config.model.vits.length_scale = 1
                                config.model.num_threads = threads
                                config.model.provider = provider
                                config.max_num_sentences = 1
                                guard let tts = sherpa.SherpaOnnxCreateOfflineTts(&config) else {
                                    throw SDKException(
                                        .modelLoadFailed,
                                        "sherpa-onnx could not load the voice \(path.lastPathComponent)",
                                        recovery:
                                            "The .onnx needs sherpa metadata: prepare it with scripts/prepare_piper_voice.py"
                                    )
                                }
                                return (NativeHandle(tts), Int(sherpa.SherpaOnnxOfflineTtsSampleRate(tts)))
                            }
                        }
                    }
                }
            }
            let voice = TTSVoice(id: model.id, name: model.name, language: language, sampleRate: rate, isSystem: false)
            return SherpaTTSService(voice: voice, tts: handle, worker: worker, language: language, sampleRate: rate)
        } catch {
            worker.stop()
            throw SDKException.wrap(error, as: .modelLoadFailed, "Loading voice '\(model.id)' failed")
        }
    }

    /// sherpa-onnx ends the process (rather than failing) on a voice without its metadata
    /// or on a token table without Piper's `^` and `$`, so both are checked first.
    private static func checkVoice(model: URL, tokens: URL) throws(SDKException) {
        guard let data = try? Data(contentsOf: model, options: .mappedIfSafe) else {
            throw SDKException(.modelFileNotFound, "Cannot read \(model.path)")
        }
        for key in ["sample_rate", "model_type"] where data.range(of: Data(key.utf8)) == nil {
            throw SDKException(
                .invalidModelFormat,
                "\(model.lastPathComponent) lacks sherpa-onnx's '\(key)' metadata",
                recovery: "Prepare the voice with scripts/prepare_piper_voice.py"
            )
        }
        let table = (try? String(contentsOf: tokens, encoding: .utf8)) ?? ""
        let symbols = Set(
            table.split(separator: "\n").compactMap { line in line.split(separator: " ").first.map(String.init) }
        )
        guard symbols.contains("^"), symbols.contains("$"), symbols.contains("_") else {
            throw SDKException(
                .invalidModelFormat,
                "\(tokens.path) lacks Piper's '^', '$' or '_' symbols",
                recovery: "Prepare the voice with scripts/prepare_piper_voice.py"
            )
        }
    }

    /// `espeak.voice` from Piper's `.onnx.json`, when the folder has one.
    private static func espeakLanguage(in folder: URL) -> String? {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        guard let config = files.first(where: { $0.hasSuffix(".onnx.json") }),
            let data = try? Data(contentsOf: folder.appendingPathComponent(config)),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let espeak = json["espeak"] as? [String: Any]
        else { return nil }
        return espeak["voice"] as? String
    }

    func synthesize(_ text: String, voice: String, options: TTSOptions) async throws -> PCMAudio {
        let clauses = try await ESpeakEngine.shared.phonemes(text, language: language)
        // Piper was trained on NFD-normalized phonemes.
        let codepoints = clauses.joined(separator: " ").decomposedStringWithCanonicalMapping.unicodeScalars.map {
            Int32($0.value)
        }
        guard !codepoints.isEmpty else { return PCMAudio(samples: [], sampleRate: sampleRate) }
        // Pitch is not a Piper parameter: speak at rate/pitch, then play the result `pitch`
        // times faster, which moves the pitch by that factor and restores the rate.
        let speed = options.rate / options.pitch
        let tts = self.tts
        let rate = sampleRate
        let samples = try await worker.run { () throws -> [Float] in
            var config = SherpaOnnxGenerationConfig()
            config.speed = speed
            config.sid = 0
            config.silence_scale = 1
            var lengths = [Int32(codepoints.count)]
            return try codepoints.withUnsafeBufferPointer { points in
                try lengths.withUnsafeMutableBufferPointer { lens in
                    config.phoneme_codepoints = points.baseAddress
                    config.phoneme_codepoints_lens = UnsafePointer(lens.baseAddress)
                    config.phoneme_codepoints_num_sentences = 1
                    guard let audio = sherpa.SherpaOnnxOfflineTtsGenerateWithConfig(tts.pointer, "", &config, nil, nil)
                    else {
                        throw SDKException(.backendError, "sherpa-onnx failed to synthesize")
                    }
                    defer { sherpa.SherpaOnnxDestroyOfflineTtsGeneratedAudio(audio) }
                    return Array(UnsafeBufferPointer(start: audio.pointee.samples, count: Int(audio.pointee.n)))
                }
            }
        }
        guard options.pitch != 1 else { return PCMAudio(samples: samples, sampleRate: rate) }
        let shifted = AudioResampler.resample(samples, from: Int((Float(rate) * options.pitch).rounded()), to: rate)
        return PCMAudio(samples: shifted, sampleRate: rate)
    }

    func unload() async {
        let tts = self.tts
        _ = try? await worker.run { sherpa.SherpaOnnxDestroyOfflineTts(tts.pointer) }
        worker.stop()
    }
}
