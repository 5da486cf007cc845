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

/// libwhisper, opened on first use with `RTLD_DEEPBIND`.
///
/// whisper.cpp brings its own, older ggml. Its files are hash-renamed, but its symbols
/// are not: linked into a process that also links llama.cpp, whisper's calls into ggml
/// bind to llama.cpp's ggml (same names, other structures) and crash. Deep binding makes
/// libwhisper and the ggml it depends on resolve their symbols among themselves first,
/// while llama.cpp keeps the process's global ggml.
enum WhisperLibrary {
    #if os(Linux)
    // Its own copy of ggml binds to itself, not to llama.cpp's already in the process.
    private static let flags = RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND
    private static let candidates = [RUNANYWHERE_WHISPER_LIBRARY, "libwhisper-runanywhere.so"]
    #else
    // Two-level namespaces bind a library's ggml to its own copy already.
    private static let flags = RTLD_NOW | RTLD_LOCAL
    private static let candidates = [RUNANYWHERE_WHISPER_LIBRARY, "libwhisper-runanywhere.dylib"]
    #endif

    /// The functions, or why they could not be opened: a build the user names (a GPU build,
    /// say) first, then the bootstrap's recorded path, then the loader's search path.
    static let shared = NativeFunctions.opening(
        candidates,
        variable: "RUNANYWHERE_WHISPER_LIBRARY",
        flags: flags,
        empty: rac_whisper_functions(),
        fill: { rac_whisper_functions_load($0, $1) }
    )

    /// The functions, opening the library on first call.
    static func load() throws(SDKException) -> NativeFunctions<rac_whisper_functions> {
        try shared.get()
    }

    /// Whether whisper's ggml found a GPU it was built for (a CUDA, Vulkan, Metal… build).
    static let hasGPU: Bool = (try? shared.get()).map { countsGPU($0.library) } ?? false

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
