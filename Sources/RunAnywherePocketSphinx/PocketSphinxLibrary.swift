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

/// pocketsphinx (and sphinxbase, its dependency), opened on first use rather than linked, so that a program built with this
/// backend maps no engine until it uses one.
enum PocketSphinxLibrary {
    /// The functions, or why they could not be opened.
    static let shared: Result<NativeFunctions<rac_pocketsphinx_functions>, SDKException> = {
        #if os(Linux)
        let platformCandidates = ["libpocketsphinx.so.3", "libpocketsphinx.so"]
        #else
        let platformCandidates = ["libpocketsphinx.3.dylib", "libpocketsphinx.dylib"]
        #endif
        let candidates = platformCandidates
        do throws(SDKException) {
            return .success(
                try NativeFunctions(
                    opening: candidates,
                    flags: RTLD_NOW | RTLD_LOCAL,
                    recovery: "Run `scripts/bootstrap engines`",
                    empty: rac_pocketsphinx_functions(),
                    fill: { rac_pocketsphinx_functions_load($0, $1) }
                )
            )
        } catch {
            return .failure(error)
        }
    }()

    /// The functions, opening the library on first call.
    static func load() throws(SDKException) -> NativeFunctions<rac_pocketsphinx_functions> {
        try shared.get()
    }
}

/// pocketsphinx's functions, for code that runs only once a service exists: every
/// service is made by a load that called ``PocketSphinxLibrary/load()``.
var pocketsphinx: NativeFunctions<rac_pocketsphinx_functions> {
    switch PocketSphinxLibrary.shared {
    case .success(let functions): functions
    case .failure(let error): preconditionFailure("pocketsphinx called before it was opened: \(error)")
    }
}
