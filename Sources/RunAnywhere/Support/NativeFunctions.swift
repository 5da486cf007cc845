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

/// A C library's functions, opened on first use, called by their C names.
///
/// An engine's shim header lists the functions a backend calls and declares a struct with one
/// function-pointer field per name, typed from the library's own declarations, and a loader that
/// fills it with `dlsym` (see `Sources/CLlama/shim.h`). This wraps such a table: once
/// ``init(opening:flags:recovery:empty:fill:)`` has found every function, `table.llama_decode(…)`
/// calls the C function, and nothing of the engine is mapped before that.
@dynamicMemberLookup
package struct NativeFunctions<Table>: @unchecked Sendable {
    // Immutable after init; C function pointers, valid while the library stays open (it never closes).
    private let table: Table
    /// The library the functions come from.
    package let library: DynamicLibrary

    /// Opens the first of `candidates` that loads and fills `empty` with `fill`, which returns
    /// the name of the first function it did not find, or nil.
    ///
    /// - Throws: `.backendError` when no candidate opens or a function is missing, with `recovery`.
    package init(
        opening candidates: [String],
        flags: Int32,
        recovery: String,
        empty: Table,
        fill: (UnsafeMutablePointer<Table>, UnsafeMutableRawPointer) -> UnsafePointer<CChar>?
    ) throws(SDKException) {
        let library = try DynamicLibrary(candidates, flags: flags, recovery: recovery)
        var table = empty
        if let missing = fill(&table, library.handle) {
            throw SDKException(
                .backendError,
                "\(library.path) lacks \(String(cString: missing)): it is not the version this SDK was built for",
                recovery: recovery
            )
        }
        self.table = table
        self.library = library
    }

    /// The C function named by the field; every field was filled at init.
    package subscript<Function>(dynamicMember field: KeyPath<Table, Function?>) -> Function {
        guard let function = table[keyPath: field] else {
            preconditionFailure("\(library.path): a function of its table was not filled")
        }
        return function
    }
}

extension String {
    /// The C string at `pointer`, or empty for NULL: what a function of a ``NativeFunctions``
    /// table returns carries no nullability, so it reaches Swift as an optional.
    package init(nullableCString pointer: UnsafePointer<CChar>?) {
        self = pointer.map { String(cString: $0) } ?? ""
    }
}

extension NativeFunctions {
    /// Opens a library's table, for a backend's one `static let`: the library that the
    /// environment variable `variable` names first (a build of the user's), then `candidates`,
    /// with `dlopen`'s `flags`; or why none opened.
    package static func opening(
        _ candidates: [String],
        variable: String? = nil,
        flags: Int32 = RTLD_NOW | RTLD_LOCAL,
        empty: Table,
        fill: (UnsafeMutablePointer<Table>, UnsafeMutableRawPointer) -> UnsafePointer<CChar>?
    ) -> Result<Self, SDKException> {
        let named = variable.flatMap { ProcessInfo.processInfo.environment[$0] }.flatMap { $0.isEmpty ? nil : $0 }
        do throws(SDKException) {
            return .success(
                try Self(
                    opening: (named.map { [$0] } ?? []) + candidates,
                    flags: flags,
                    recovery: "Run `scripts/bootstrap engines`",
                    empty: empty,
                    fill: fill
                )
            )
        } catch {
            return .failure(error)
        }
    }

    /// The table that `opening` gave, for code that runs only once a service exists: every
    /// service is made by a load that opened it, so a failure here is a programming error.
    package static func opened(_ result: Result<Self, SDKException>, engine: String) -> Self {
        switch result {
        case .success(let functions): functions
        case .failure(let error): preconditionFailure("\(engine) called before it was opened: \(error)")
        }
    }
}
