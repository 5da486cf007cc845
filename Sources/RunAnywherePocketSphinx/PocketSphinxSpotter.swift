internal import CPocketSphinx
@_spi(Backend) import RunAnywhere

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

/// One pocketsphinx decoder in keyword-spotting mode, listening for a configuration's
/// phrases: a ``WakeWordService``.
///
/// The decoder scores every frame against each phrase's phones and reports a phrase once
/// its score beats the phrase's threshold; the threshold comes from the sensitivity and
/// the phrase's length in phones (see ``threshold(phones:sensitivity:)``). After a
/// detection the utterance is restarted, which re-arms the spotter.
///
/// Audio below 16 kHz (telephone speech at 8 kHz) is brought up by linear interpolation,
/// not by the SDK's band-limited resampler: the acoustic model was trained on wideband
/// speech and needs energy above 4 kHz, which the images of linear interpolation stand in
/// for. Measured on the real 8 kHz prompts of the speech set: "please try again" found in
/// 10 of 10 this way, 8 of 10 band-limited (none even at a threshold of 1e-80 for two).
actor PocketSphinxSpotter: WakeWordService {
    /// Samples per pocketsphinx frame (100 frames a second at 16 kHz).
    static let frameSamples = 160
    /// Audio is decoded in pieces of this many samples, so a detection is dated and
    /// re-armed within 32 ms whatever the chunk size.
    static let piece = 512

    /// pocketsphinx and sphinxbase log to stderr unless told otherwise, once per process.
    private static let quiet: Void = { pocketsphinx.err_set_logfp(nil) }()

    /// The decoder and what it was made from, freed together when the spotter goes.
    private final class Handles {
        let decoder: OpaquePointer
        let config: OpaquePointer
        let arguments: [UnsafeMutablePointer<CChar>?]

        init(decoder: OpaquePointer, config: OpaquePointer, arguments: [UnsafeMutablePointer<CChar>?]) {
            self.decoder = decoder
            self.config = config
            self.arguments = arguments
        }

        deinit {
            _ = pocketsphinx.ps_free(decoder)
            _ = pocketsphinx.cmd_ln_free_r(config)
            Handles.release(arguments)
        }

        static func release(_ arguments: [UnsafeMutablePointer<CChar>?]) {
            for argument in arguments { free(argument) }
        }
    }

    private let handles: Handles
    private var decoder: OpaquePointer { handles.decoder }
    /// The configured phrase for each keyphrase the decoder reports.
    private let phrases: [String: String]
    private var samplesSeen = 0
    private var upsampler = NarrowbandUpsampler()
    private var utteranceStart = 0

    init(model: PocketSphinxModel, configuration: WakeWordConfiguration) async throws {
        try configuration.validate()
        _ = try PocketSphinxLibrary.load()
        _ = Self.quiet
        let words: [String] = [
            "pocketsphinx", "-hmm", model.acousticModel.path, "-dict", model.dictionary.path,
            // Every frame is decoded, so frame numbers are sample offsets.
            "-remove_silence", "no", "-logfn", "/dev/null",
        ]
        var arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) }
        let count = Int32(arguments.count)
        let parsed: OpaquePointer? = arguments.withUnsafeMutableBufferPointer { buffer in
            pocketsphinx.cmd_ln_parse_r(nil, pocketsphinx.ps_args(), count, buffer.baseAddress, 1)
        }
        guard let config = parsed else {
            Handles.release(arguments)
            throw SDKException(.modelLoadFailed, "pocketsphinx rejected its configuration")
        }
        guard let decoder = pocketsphinx.ps_init(config) else {
            _ = pocketsphinx.cmd_ln_free_r(config)
            Handles.release(arguments)
            throw SDKException(
                .modelLoadFailed,
                "pocketsphinx could not load its model from \(model.directory.path)",
                recovery: "Install it with `apt-get install pocketsphinx-en-us`"
            )
        }
        // From here on, the handles free everything when they go, thrown or not.
        let handles = Handles(decoder: decoder, config: config, arguments: arguments)
        // Every word must be in the dictionary: a missing one would fail deep in the search.
        var lines: [String] = []
        var phrases: [String: String] = [:]
        for (phrase, words) in zip(configuration.phrases, configuration.phraseWords) {
            var phones = 0
            for word in words {
                guard let pronunciation = pocketsphinx.ps_lookup_word(decoder, word) else {
                    throw SDKException(
                        .invalidConfiguration,
                        "\"\(word)\" in the wake phrase \"\(phrase)\" is not in pocketsphinx's dictionary",
                        recovery: "Use words of the English dictionary (CMUdict), spelled out (\"two\", not \"2\")"
                    )
                }
                phones += String(cString: pronunciation).split(separator: " ").count
                free(pronunciation)
            }
            let key = words.joined(separator: " ")
            phrases[key] = phrase
            lines.append("\(key) /\(Self.threshold(phones: phones, sensitivity: configuration.sensitivity))/")
        }
        // The keyword list goes through a file: it is the only way to give each phrase its own threshold.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("runanywhere-kws-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let search = "wake"
        do {
            try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        } catch {
            throw SDKException(.fileSystemError, "Could not write pocketsphinx's keyword list", underlying: error)
        }
        guard pocketsphinx.ps_set_kws(decoder, search, file.path) >= 0,
            pocketsphinx.ps_set_search(decoder, search) >= 0,
            pocketsphinx.ps_start_utt(decoder) >= 0
        else {
            throw SDKException(.backendError, "pocketsphinx could not start spotting \(configuration.phrases)")
        }
        self.handles = handles
        self.phrases = phrases
    }

    /// The detection threshold pocketsphinx compares a phrase's score with: a probability,
    /// 10^-(4 × sensitivity) per phone of the phrase, so longer phrases (whose scores
    /// multiply more frames) get smaller thresholds and higher sensitivity accepts more.
    ///
    /// Measured on the real-speech set (16 min) and the neural voice (`bench wakeword`): at
    /// 2 per phone (sensitivity 0.5), "please try again" (11 phones) is found in 10 of 10 real
    /// recordings with no false accept, where 3 per phone gives 2 false accepts; "hey
    /// computer" (10 phones) in 10 of 10 clean and 9 of 10 at 20 dB SNR with none.
    static func threshold(phones: Int, sensitivity: Float) -> String {
        let exponent = max(1, Int((Double(phones) * 4 * Double(sensitivity)).rounded()))
        return "1e-\(exponent)"
    }

    func process(_ chunk: PCMAudio) async throws -> [WakeWordSpot] {
        let samples = chunk.sampleRate < 16_000 ? upsampler.process(chunk) : chunk.speechInput().samples
        var spots: [WakeWordSpot] = []
        var pcm = samples.map { Int16(max(-32_768, min(32_767, ($0 * 32_768).rounded()))) }
        var start = 0
        while start < pcm.count {
            let count = min(Self.piece, pcm.count - start)
            let status = pcm.withUnsafeMutableBufferPointer {
                pocketsphinx.ps_process_raw(decoder, $0.baseAddress! + start, count, 0, 0)
            }
            guard status >= 0 else { throw SDKException(.backendError, "pocketsphinx failed to decode audio") }
            samplesSeen += count
            start += count
            var score: Int32 = 0
            guard let hypothesis = pocketsphinx.ps_get_hyp(decoder, &score) else { continue }
            // The decoder ends its hypothesis with a space.
            let key = String(cString: hypothesis).trimmedSpaces()
            spots.append(WakeWordSpot(phrase: phrases[key] ?? key, time: Double(phraseEnd()) / 16_000))
            // Re-armed: a new utterance forgets the phrase just found.
            _ = pocketsphinx.ps_end_utt(decoder)
            _ = pocketsphinx.ps_start_utt(decoder)
            utteranceStart = samplesSeen
        }
        return spots
    }

    /// Where the phrase just found ended, in samples of the stream.
    private func phraseEnd() -> Int {
        var lastFrame: Int32 = -1
        var segment = pocketsphinx.ps_seg_iter(decoder)
        while let current = segment {
            var first: Int32 = 0
            var last: Int32 = 0
            pocketsphinx.ps_seg_frames(current, &first, &last)
            lastFrame = max(lastFrame, last)
            segment = pocketsphinx.ps_seg_next(current)
        }
        guard lastFrame >= 0 else { return samplesSeen }
        return min(samplesSeen, utteranceStart + (Int(lastFrame) + 1) * Self.frameSamples)
    }

    func reset() async {
        upsampler = NarrowbandUpsampler()
        _ = pocketsphinx.ps_end_utt(decoder)
        _ = pocketsphinx.ps_start_utt(decoder)
        samplesSeen = 0
        utteranceStart = 0
    }
}
