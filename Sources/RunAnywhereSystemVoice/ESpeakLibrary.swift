internal import CESpeak
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

/// espeak-ng, opened on first use rather than linked, so that a program built with this
/// backend maps no engine until it uses one.
enum ESpeakLibrary {
    /// The functions, or why they could not be opened.
    static let shared: Result<NativeFunctions<rac_espeak_functions>, SDKException> = {
        #if os(Linux)
        let platformCandidates = ["libespeak-ng.so.1", "libespeak-ng.so"]
        #else
        let platformCandidates = ["libespeak-ng.1.dylib", "libespeak-ng.dylib"]
        #endif
        let candidates = platformCandidates
        do throws(SDKException) {
            return .success(
                try NativeFunctions(
                    opening: candidates,
                    flags: RTLD_NOW | RTLD_LOCAL,
                    recovery: "Run `scripts/bootstrap engines`",
                    empty: rac_espeak_functions(),
                    fill: { rac_espeak_functions_load($0, $1) }
                )
            )
        } catch {
            return .failure(error)
        }
    }()

    /// The functions, opening the library on first call.
    static func load() throws(SDKException) -> NativeFunctions<rac_espeak_functions> {
        try shared.get()
    }
}

/// espeak-ng's functions, for code that runs only once a service exists: every
/// service is made by a load that called ``ESpeakLibrary/load()``.
var espeak: NativeFunctions<rac_espeak_functions> {
    switch ESpeakLibrary.shared {
    case .success(let functions): functions
    case .failure(let error): preconditionFailure("espeak-ng called before it was opened: \(error)")
    }
}
