internal import CSherpa
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

/// sherpa-onnx's C API (and onnxruntime, its dependency), opened on first use rather than linked, so that a program built with this
/// backend maps no engine until it uses one.
enum SherpaLibrary {
    /// The functions, or why they could not be opened.
    static let shared: Result<NativeFunctions<rac_sherpa_functions>, SDKException> = {
        #if os(Linux)
        let platformCandidates = [RUNANYWHERE_SHERPA_LIBRARY, "libsherpa-onnx-c-api.so"]
        #else
        let platformCandidates = ["libsherpa-onnx-c-api.dylib"]
        #endif
        let named = ProcessInfo.processInfo.environment["RUNANYWHERE_SHERPA_LIBRARY"].flatMap { $0.isEmpty ? nil : $0 }
        let candidates = (named.map { [$0] } ?? []) + platformCandidates
        do throws(SDKException) {
            return .success(
                try NativeFunctions(
                    opening: candidates,
                    flags: RTLD_NOW | RTLD_LOCAL,
                    recovery: "Run `scripts/bootstrap engines`",
                    empty: rac_sherpa_functions(),
                    fill: { rac_sherpa_functions_load($0, $1) }
                )
            )
        } catch {
            return .failure(error)
        }
    }()

    /// The functions, opening the library on first call.
    static func load() throws(SDKException) -> NativeFunctions<rac_sherpa_functions> {
        try shared.get()
    }
}

/// sherpa-onnx's C API's functions, for code that runs only once a service exists: every
/// service is made by a load that called ``SherpaLibrary/load()``.
var sherpa: NativeFunctions<rac_sherpa_functions> {
    switch SherpaLibrary.shared {
    case .success(let functions): functions
    case .failure(let error): preconditionFailure("sherpa-onnx's C API called before it was opened: \(error)")
    }
}
