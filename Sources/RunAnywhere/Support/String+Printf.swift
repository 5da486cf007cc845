#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Foundation's `String(format:)` does what these do, but on Linux it lives in full Foundation,
// which a process that never needs it otherwise would map and keep resident (about 6.5 MiB).

/// A number `String(printf:)` takes. Strings are left out on purpose: with full Foundation
/// imported somewhere a `String` is a `CVarArg` too, but C's `printf` cannot read it.
package protocol PrintfNumber: CVarArg {}

extension Int: PrintfNumber {}
extension Int32: PrintfNumber {}
extension Int64: PrintfNumber {}
extension UInt: PrintfNumber {}
extension UInt32: PrintfNumber {}
extension UInt64: PrintfNumber {}
extension Double: PrintfNumber {}
extension Float: PrintfNumber {}

extension String {
    /// Numbers formatted as C's `printf` formats them: `String(printf: "%7.3f", seconds)`.
    ///
    /// Only C's numeric conversions (`d`, `ld`, `u`, `x`, `f`, `e`, `g` with flags, width and
    /// precision): `Int` is 64 bits, so it takes `%ld`.
    package init(printf format: String, _ arguments: any PrintfNumber...) {
        let arguments = arguments.map { $0 as any CVarArg }
        let length = withVaList(arguments) { vsnprintf(nil, 0, format, $0) }
        guard length > 0 else {
            self = ""
            return
        }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        _ = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
        self = String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension Double {
    /// The value with `decimals` digits after the point (0 to 20), rounded as `printf("%.*f")`
    /// rounds: `12.345.fixed(decimals: 1)` is `"12.3"`.
    package func fixed(decimals: Int) -> String {
        String(printf: "%.*f", Int32(min(max(decimals, 0), 20)), self)
    }
}

extension Sequence<UInt8> {
    /// The bytes as lowercase hexadecimal, two digits each: a digest's usual spelling.
    package var hexEncoded: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
