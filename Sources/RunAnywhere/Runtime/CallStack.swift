import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The return addresses of the call stack where something happened, named only when read:
/// capturing costs a few microseconds, naming the frames a few hundred.
///
/// Two call stacks always compare equal, so a value that carries one (``SDKException``)
/// compares by what it says, not where it was made.
struct CallStack: Sendable, Hashable {
    let addresses: [UInt]

    /// The caller's stack, without this function's own frame.
    static func capture() -> CallStack {
        CallStack(addresses: Thread.callStackReturnAddresses.dropFirst().map(\.uintValue))
    }

    static func == (lhs: CallStack, rhs: CallStack) -> Bool { true }

    func hash(into hasher: inout Hasher) {}

    /// libc's `backtrace_symbols` (glibc, musl's libexecinfo, Darwin's libSystem), looked up
    /// in the process rather than imported: Swift's Glibc module leaves `execinfo.h` out.
    private typealias SymbolsFunction =
        @convention(c) (UnsafePointer<UnsafeMutableRawPointer?>?, Int32) -> UnsafeMutablePointer<
            UnsafeMutablePointer<CChar>?
        >?
    private static let symbolsFunction: SymbolsFunction? = dlopen(nil, RTLD_NOW)
        .flatMap { dlsym($0, "backtrace_symbols") }
        .map { unsafeBitCast($0, to: SymbolsFunction.self) }

    /// One line per frame, innermost first, as libc names it: the image, the symbol (mangled,
    /// as the linker knows it) and the offset, e.g. `libFoundation.so($s10Foundation…+0x2e) [0x7f…]`;
    /// only the address where libc cannot name the frame.
    var symbols: [String] {
        let pointers = addresses.map { UnsafeMutableRawPointer(bitPattern: $0) }
        let fallback = addresses.map { "[0x" + String($0, radix: 16) + "]" }
        guard !pointers.isEmpty, let name = Self.symbolsFunction,
            let names = pointers.withUnsafeBufferPointer({ name($0.baseAddress, Int32($0.count)) })
        else { return fallback }
        defer { free(names) }
        return pointers.indices.map { index in names[index].map { String(cString: $0) } ?? fallback[index] }
    }
}
