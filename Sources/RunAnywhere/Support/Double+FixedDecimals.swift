#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Double {
    /// The value with `decimals` digits after the point (0 to 20), rounded as `printf("%.*f")`
    /// rounds: `12.345.fixed(decimals: 1)` is `"12.3"`.
    ///
    /// Foundation's `String(format:)` does the same, but on Linux it lives in full Foundation,
    /// whose first call costs pages a process that never needs it otherwise keeps resident.
    package func fixed(decimals: Int) -> String {
        let decimals = Int32(min(max(decimals, 0), 20))
        // 309 integer digits at most (Double's largest), a sign, a point, the decimals and a NUL.
        var buffer = [CChar](repeating: 0, count: 312 + Int(decimals))
        _ = withVaList([decimals, self]) { vsnprintf(&buffer, buffer.count, "%.*f", $0) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
