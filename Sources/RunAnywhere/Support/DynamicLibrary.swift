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

/// A native library opened at run time, with typed lookups of its functions.
///
/// Backends open an engine this way when linking it would be wrong (whisper.cpp's ggml
/// must not bind to llama.cpp's) or optional (ALSA: a machine without it still runs).
package struct DynamicLibrary: @unchecked Sendable {
    // The handle is never closed: the function pointers taken from it live as long as the process.
    /// The `dlopen` handle, for a C loader that fills a table of functions (`NativeFunctions`).
    package let handle: UnsafeMutableRawPointer
    /// The file that was opened.
    package let path: String

    /// Opens the first of `candidates` (paths or sonames) that loads.
    ///
    /// - Throws: `.backendError` listing why each candidate failed, with `recovery`.
    package init(
        _ candidates: [String],
        flags: Int32 = RTLD_NOW | RTLD_LOCAL,
        recovery: String? = nil
    ) throws(SDKException) {
        var reasons: [String] = []
        for candidate in candidates {
            if let handle = dlopen(candidate, flags) {
                self.handle = handle
                self.path = candidate
                return
            }
            reasons.append(dlerror().map { String(cString: $0) } ?? candidate)
        }
        throw SDKException(
            .backendError,
            "Cannot open \(candidates.first ?? "the library"): \(reasons.joined(separator: "; "))",
            recovery: recovery
        )
    }

    /// The function `name`, as the C function type `T`.
    ///
    /// - Throws: `.backendError` when the library lacks it.
    package func symbol<T>(_ name: String, as type: T.Type = T.self) throws(SDKException) -> T {
        guard let pointer = dlsym(handle, name) else {
            throw SDKException(.backendError, "\(path) lacks \(name)")
        }
        return unsafeBitCast(pointer, to: type)
    }

    /// The function `name` as `T`, or nil when the library (and what it loaded) lacks it.
    package func optionalSymbol<T>(_ name: String, as type: T.Type = T.self) -> T? {
        dlsym(handle, name).map { unsafeBitCast($0, to: type) }
    }
}
