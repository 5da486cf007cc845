internal import COpenBLAS
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

/// OpenBLAS, opened on first use rather than linked, so that a program built with this
/// backend maps no engine until it uses one.
enum OpenBLASLibrary {
    /// The functions, or why they could not be opened.
    static let shared: Result<NativeFunctions<rac_openblas_functions>, SDKException> = {
        #if os(Linux)
        let platformCandidates = ["libopenblas.so.0", "libopenblas.so"]
        #else
        let platformCandidates = ["libopenblas.0.dylib", "libopenblas.dylib"]
        #endif
        let candidates = platformCandidates
        do throws(SDKException) {
            return .success(
                try NativeFunctions(
                    opening: candidates,
                    flags: RTLD_NOW | RTLD_LOCAL,
                    recovery: "Run `scripts/bootstrap engines`",
                    empty: rac_openblas_functions(),
                    fill: { rac_openblas_functions_load($0, $1) }
                )
            )
        } catch {
            return .failure(error)
        }
    }()

    /// The functions, opening the library on first call.
    static func load() throws(SDKException) -> NativeFunctions<rac_openblas_functions> {
        try shared.get()
    }
}

/// OpenBLAS's functions, for code that runs only once a service exists: every
/// service is made by a load that called ``OpenBLASLibrary/load()``.
var openblas: NativeFunctions<rac_openblas_functions> {
    switch OpenBLASLibrary.shared {
    case .success(let functions): functions
    case .failure(let error): preconditionFailure("OpenBLAS called before it was opened: \(error)")
    }
}
