internal import CWhisper
@_spi(Backend) import RunAnywhere
import RunAnywhereWhisperWindow

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

/// A whisper.cpp model, ready to transcribe.
///
/// Every engine call runs on the service's own ``WorkerThread``, one at a time: a
/// `whisper_context` holds one decoding state, and ggml keeps its thread team per caller.
package actor WhisperCPPSTTService: STTService {
    package nonisolated let model: ModelInfo
    private let library: NativeFunctions<rac_whisper_functions>
    private let context: NativeHandle
    private let worker: WorkerThread
    /// Whether the model knows more than English (read once, at load).
    private let multilingual: Bool

    private init(
        model: ModelInfo,
        library: NativeFunctions<rac_whisper_functions>,
        context: NativeHandle,
        worker: WorkerThread,
        multilingual: Bool
    ) {
        self.model = model
        self.library = library
        self.context = context
        self.worker = worker
        self.multilingual = multilingual
    }

    package static func load(
        model: ModelInfo,
        accelerator: AcceleratorPreference
    ) async throws(SDKException) -> WhisperCPPSTTService {
        let path = try model.localFile()
        let library = try WhisperLibrary.load()
        let useGPU = try accelerator.usesGPU(engine: "whisper.cpp", engineHasGPU: WhisperLibrary.hasGPU)
        let worker = WorkerThread(name: "whisper.\(model.id)")
        do {
            let (context, multilingual) = try await worker.run { () throws -> (NativeHandle, Bool) in
                var params = library.whisper_context_default_params()
                params.use_gpu = useGPU
                params.flash_attn = false
                guard let pointer = library.whisper_init_from_file_with_params(path.path, params) else {
                    throw SDKException(
                        .modelLoadFailed,
                        "whisper.cpp could not load \(path.lastPathComponent)",
                        recovery:
                            "The file must be a whisper.cpp ggml model (e.g. made by scripts/convert_whisper_ct2.py)"
                    )
                }
                return (NativeHandle(pointer), library.whisper_is_multilingual(pointer) != 0)
            }
            return WhisperCPPSTTService(
                model: model,
                library: library,
                context: context,
                worker: worker,
                multilingual: multilingual
            )
        } catch {
            worker.stop()
            throw SDKException.wrap(error, as: .modelLoadFailed, "Loading '\(model.id)' failed")
        }
    }

    package func transcribe(_ audio: PCMAudio, options: STTOptions) async throws -> STTServiceResult {
        let context = self.context
        let library = self.library
        let multilingual = self.multilingual
        let language = multilingual ? (options.language ?? "auto") : "en"
        let threads = Int32(options.threads ?? ProcessInfo.processInfo.activeProcessorCount)
        let samples = audio.samples
        let audioContext = Int32(WhisperWindow.audioContext(forSeconds: audio.duration))
        let maxTokens = Int32(WhisperWindow.maxTokens(forSeconds: audio.duration))
        let prompt = options.initialPrompt
        let translate = options.translate && multilingual
        let modelId = model.id
        let duration = audio.duration
        // Cancelling the caller stops whisper at its next step (or before it starts), so an
        // abandoned transcription, such as a speculative one the user talked over, frees the
        // engine for the next one at once.
        let cancellation = CancellationFlag()
        let worker = self.worker
        return try await withTaskCancellationHandler {
            try await worker.run { () throws -> STTServiceResult in
                func run(audioContext: Int32) throws -> STTServiceResult {
                    guard !cancellation.isCancelled else { throw Self.cancelled }
                    var params = library.whisper_full_default_params(WHISPER_SAMPLING_GREEDY)
                    params.n_threads = threads
                    params.print_progress = false
                    params.print_realtime = false
                    params.print_special = false
                    params.print_timestamps = false
                    params.no_context = true
                    params.translate = translate
                    params.audio_ctx = audioContext
                    params.suppress_blank = true
                    // One greedy pass. whisper's temperature fallback decodes a window again at
                    // rising temperatures when a pass looks unsure, which on short real utterances
                    // meant up to seven extra passes of sampled, looping text: 2-11 s for a 1-3 s
                    // clip, and words said twice. The token bound stops a loop within one pass.
                    params.temperature_inc = 0
                    params.max_tokens = maxTokens
                    params.abort_callback = whisperAbort
                    params.abort_callback_user_data = Unmanaged.passUnretained(cancellation).toOpaque()
                    let code: Int32 = language.withCString { languagePointer in
                        params.language = languagePointer
                        params.detect_language = false
                        return (prompt ?? "").withCString { promptPointer in
                            if prompt != nil { params.initial_prompt = promptPointer }
                            return samples.withUnsafeBufferPointer { buffer in
                                library.whisper_full(context.pointer, params, buffer.baseAddress, Int32(buffer.count))
                            }
                        }
                    }
                    guard !cancellation.isCancelled else { throw Self.cancelled }
                    guard code == 0 else {
                        throw SDKException(
                            .backendError,
                            "whisper.cpp failed to transcribe with '\(modelId)' (code \(code))"
                        )
                    }
                    return Self.collect(context.pointer, library, duration: duration)
                }
                let result = try run(audioContext: audioContext)
                // Should the shortened window still send the decoder into a loop (a phrase said
                // twice, or more words than anyone says in the time), decode once more with the
                // full window.
                let words = result.text.split(whereSeparator: \.isWhitespace).count
                if audioContext < 1500,
                    words > Int(duration * 6) + 10 || TranscriptRepetition.repeatsPhrase(result.text)
                {
                    return try run(audioContext: 0)
                }
                return result
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    private static let cancelled = SDKException(.transcriptionCancelled, "The transcription was cancelled")

    private static func collect(
        _ context: OpaquePointer,
        _ whisper: NativeFunctions<rac_whisper_functions>,
        duration: Double
    ) -> STTServiceResult {
        let eot = whisper.whisper_token_eot(context)
        var segments: [STTSegment] = []
        var probabilitySum: Float = 0
        var probabilityCount = 0
        for index in 0..<whisper.whisper_full_n_segments(context) {
            let text = String(nullableCString: whisper.whisper_full_get_segment_text(context, index)).trimmedSpaces()
            // Annotations such as "[BLANK_AUDIO]" or "(music)" are not speech, and neither is
            // text whisper itself rates as probably no speech: its classic "you" or "Thank
            // you." on silence, hum or noise comes with a no-speech probability of 0.6 and
            // more, while words of real recordings stay well below.
            guard !text.isEmpty, !isAnnotation(text),
                whisper.whisper_full_get_segment_no_speech_prob(context, index) < noSpeechThreshold
            else { continue }
            var segmentSum: Float = 0
            var segmentCount = 0
            for token in 0..<whisper.whisper_full_n_tokens(context, index)
            where whisper.whisper_full_get_token_id(context, index, token) < eot {
                segmentSum += whisper.whisper_full_get_token_p(context, index, token)
                segmentCount += 1
            }
            probabilitySum += segmentSum
            probabilityCount += segmentCount
            // whisper.cpp counts time in 10 ms steps, and may place the end of the last
            // segment past the audio (at the end of its shortened window).
            segments.append(
                STTSegment(
                    text: text,
                    start: min(duration, Double(whisper.whisper_full_get_segment_t0(context, index)) / 100),
                    end: min(duration, Double(whisper.whisper_full_get_segment_t1(context, index)) / 100),
                    confidence: segmentCount > 0 ? segmentSum / Float(segmentCount) : nil
                )
            )
        }
        let languageId = whisper.whisper_full_lang_id(context)
        let language = languageId >= 0 ? String(nullableCString: whisper.whisper_lang_str(languageId)) : nil
        return STTServiceResult(
            text: segments.map(\.text).joined(separator: " "),
            segments: segments,
            language: language,
            confidence: probabilityCount > 0 ? probabilitySum / Float(probabilityCount) : nil
        )
    }

    /// Segments whisper rates at least this likely to be no speech are dropped.
    static let noSpeechThreshold: Float = 0.6

    private static func isAnnotation(_ text: String) -> Bool {
        (text.hasPrefix("[") && text.hasSuffix("]")) || (text.hasPrefix("(") && text.hasSuffix(")"))
    }

    package func unload() async {
        let context = self.context
        let library = self.library
        _ = try? await worker.run { library.whisper_free(context.pointer) }
        worker.stop()
    }
}

/// whisper.cpp asks this before each step of its computation; the flag is the
/// transcription's ``CancellationFlag``.
private let whisperAbort: @convention(c) (UnsafeMutableRawPointer?) -> Bool = { data in
    guard let data else { return false }
    return Unmanaged<CancellationFlag>.fromOpaque(data).takeUnretainedValue().isCancelled
}
