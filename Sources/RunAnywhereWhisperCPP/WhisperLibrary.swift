internal import CWhisper
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

/// libwhisper, opened at run time with `RTLD_DEEPBIND`.
///
/// whisper.cpp brings its own, older ggml. Its files are hash-renamed, but its symbols
/// are not: linked into a process that also links llama.cpp, whisper's calls into ggml
/// bind to llama.cpp's ggml (same names, other structures) and crash. Deep binding makes
/// libwhisper and the ggml it depends on resolve their symbols among themselves first,
/// while llama.cpp keeps the process's global ggml.
final class WhisperLibrary: @unchecked Sendable {
    // Immutable after init.
    typealias Context = OpaquePointer
    let version: @convention(c) () -> UnsafePointer<CChar>?
    let systemInfo: @convention(c) () -> UnsafePointer<CChar>?
    let logSet: @convention(c) (ggml_log_callback?, UnsafeMutableRawPointer?) -> Void
    let contextDefaultParams: @convention(c) () -> whisper_context_params
    let initFromFile: @convention(c) (UnsafePointer<CChar>?, whisper_context_params) -> Context?
    let free: @convention(c) (Context?) -> Void
    let isMultilingual: @convention(c) (Context?) -> Int32
    let fullDefaultParams: @convention(c) (whisper_sampling_strategy) -> whisper_full_params
    let full: @convention(c) (Context?, whisper_full_params, UnsafePointer<Float>?, Int32) -> Int32
    let segmentCount: @convention(c) (Context?) -> Int32
    let segmentText: @convention(c) (Context?, Int32) -> UnsafePointer<CChar>?
    let segmentStart: @convention(c) (Context?, Int32) -> Int64
    let segmentEnd: @convention(c) (Context?, Int32) -> Int64
    let tokenCount: @convention(c) (Context?, Int32) -> Int32
    let tokenId: @convention(c) (Context?, Int32, Int32) -> whisper_token
    let tokenProbability: @convention(c) (Context?, Int32, Int32) -> Float
    let segmentNoSpeechProbability: @convention(c) (Context?, Int32) -> Float
    let endOfText: @convention(c) (Context?) -> whisper_token
    let languageId: @convention(c) (Context?) -> Int32
    let languageName: @convention(c) (Int32) -> UnsafePointer<CChar>?
    /// Whether whisper's ggml found a GPU it was built for (a CUDA, Vulkan, Metal… build).
    let hasGPU: Bool

    /// The library, or the reason it could not be opened.
    static let shared: Result<WhisperLibrary, SDKException> = {
        do throws(SDKException) { return .success(try WhisperLibrary()) } catch { return .failure(error) }
    }()

    static func load() throws(SDKException) -> WhisperLibrary {
        try shared.get()
    }

    private init() throws(SDKException) {
        // A build the user names (a GPU build, say) first, then the bootstrap's recorded path,
        // then the loader's search path.
        let named = ProcessInfo.processInfo.environment["RUNANYWHERE_WHISPER_LIBRARY"].flatMap { $0.isEmpty ? nil : $0 }
        #if os(Linux)
        // Its own copy of ggml binds to itself, not to llama.cpp's already in the process.
        let flags = RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND
        let fileName = "libwhisper-runanywhere.so"
        #else
        // Two-level namespaces bind a library's ggml to its own copy already.
        let flags = RTLD_NOW | RTLD_LOCAL
        let fileName = "libwhisper-runanywhere.dylib"
        #endif
        let library = try DynamicLibrary(
            (named.map { [$0] } ?? []) + [RUNANYWHERE_WHISPER_LIBRARY, fileName],
            flags: flags,
            recovery: "Run `scripts/bootstrap engines`"
        )
        func symbol<T>(_ name: String) throws(SDKException) -> T { try library.symbol(name) }
        version = try symbol("whisper_version")
        systemInfo = try symbol("whisper_print_system_info")
        logSet = try symbol("whisper_log_set")
        contextDefaultParams = try symbol("whisper_context_default_params")
        initFromFile = try symbol("whisper_init_from_file_with_params")
        free = try symbol("whisper_free")
        isMultilingual = try symbol("whisper_is_multilingual")
        fullDefaultParams = try symbol("whisper_full_default_params")
        full = try symbol("whisper_full")
        segmentCount = try symbol("whisper_full_n_segments")
        segmentText = try symbol("whisper_full_get_segment_text")
        segmentStart = try symbol("whisper_full_get_segment_t0")
        segmentEnd = try symbol("whisper_full_get_segment_t1")
        tokenCount = try symbol("whisper_full_n_tokens")
        tokenId = try symbol("whisper_full_get_token_id")
        tokenProbability = try symbol("whisper_full_get_token_p")
        segmentNoSpeechProbability = try symbol("whisper_full_get_segment_no_speech_prob")
        endOfText = try symbol("whisper_token_eot")
        languageId = try symbol("whisper_full_lang_id")
        languageName = try symbol("whisper_lang_str")
        hasGPU = Self.countsGPU(library)
    }

    /// Asks the ggml that libwhisper loaded for its devices: a GPU build lists a device of
    /// type GPU (1 in `enum ggml_backend_dev_type`); a ggml older than the device API has none.
    private static func countsGPU(_ library: DynamicLibrary) -> Bool {
        typealias Count = @convention(c) () -> Int
        typealias Get = @convention(c) (Int) -> OpaquePointer?
        typealias Kind = @convention(c) (OpaquePointer?) -> UInt32
        guard let count: Count = library.optionalSymbol("ggml_backend_dev_count"),
            let get: Get = library.optionalSymbol("ggml_backend_dev_get"),
            let kind: Kind = library.optionalSymbol("ggml_backend_dev_type")
        else { return false }
        return (0..<count()).contains { index in get(index).map { kind($0) == 1 } ?? false }
    }
}
