internal import CLlama
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

/// libllama and libmtmd, opened on the first model load rather than linked, so that a program
/// built with this backend maps no engine until it runs one.
///
/// libmtmd is opened by the path the bootstrap records (or `RUNANYWHERE_LLAMA_LIBRARY`, a
/// libmtmd of the user's build), and brings libllama and ggml as its dependencies. They stay
/// local to it (`RTLD_LOCAL`): their ggml symbols cannot meet whisper.cpp's.
enum LlamaLibrary {
    /// The functions, or why they could not be opened.
    static let shared: Result<NativeFunctions<rac_llama_functions>, SDKException> = {
        let named = ProcessInfo.processInfo.environment["RUNANYWHERE_LLAMA_LIBRARY"].flatMap { $0.isEmpty ? nil : $0 }
        #if os(Linux)
        let fileName = "libmtmd.so"
        #else
        let fileName = "libmtmd.dylib"
        #endif
        do throws(SDKException) {
            return .success(
                try NativeFunctions(
                    opening: (named.map { [$0] } ?? []) + [RUNANYWHERE_MTMD_LIBRARY, fileName],
                    flags: RTLD_NOW | RTLD_LOCAL,
                    recovery: "Run `scripts/bootstrap engines`",
                    empty: rac_llama_functions(),
                    fill: { rac_llama_functions_load($0, $1) }
                )
            )
        } catch {
            return .failure(error)
        }
    }()

    /// The functions, opening the libraries on first call.
    static func load() throws(SDKException) -> NativeFunctions<rac_llama_functions> {
        try shared.get()
    }
}

/// llama.cpp's functions, for code that runs only once a service exists: every service is made
/// by a load that called ``LlamaCPP/ensureBackend()``, which opened them.
var llama: NativeFunctions<rac_llama_functions> {
    switch LlamaLibrary.shared {
    case .success(let functions): functions
    case .failure(let error): preconditionFailure("llama.cpp called before it was opened: \(error)")
    }
}
