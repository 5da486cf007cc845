#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The units of ``Swift/Int64/formattedBytes(_:)``, named as `ByteCountFormatter.CountStyle`'s
/// are (that type is full Foundation's on Linux).
package enum ByteCountStyle: Sendable {
    /// Powers of 1000, as file managers count.
    case file
    /// Powers of 1024, as memory is counted.
    case memory
    /// Powers of 1000.
    case decimal
    /// Powers of 1024.
    case binary
}

extension Int64 {
    /// A byte count for people: "2.2 MB", and "0 bytes" rather than Foundation's "Zero KB".
    ///
    /// `.file` and `.decimal` count in powers of 1000 (what file managers and the CLI show);
    /// `.binary` and `.memory` in powers of 1024 (what the SDK's storage messages use).
    /// The text is `ByteCountFormatter`'s in English (tested against it on 20,000 values):
    /// whole KB, MB with one decimal, larger units with two, rounded half to even, trailing
    /// zeros dropped. It is written here because `ByteCountFormatter` builds a locale-aware
    /// `NumberFormatter`, which loaded 3 MiB of ICU's locale data into `models list`.
    package func formattedBytes(_ style: ByteCountStyle = .file) -> String {
        let base: Int64 = style == .binary || style == .memory ? 1024 : 1000
        let magnitude = self.magnitude
        let sign = self < 0 ? "-" : ""
        if magnitude < UInt64(base) {
            return "\(sign)\(Self.grouped(String(magnitude))) \(magnitude == 1 ? "byte" : "bytes")"
        }
        let units = ["KB", "MB", "GB", "TB", "PB", "EB"]
        var exponent = 1
        var scale = Double(base)
        while exponent < units.count, Double(magnitude) / scale >= Double(base) {
            exponent += 1
            scale *= Double(base)
        }
        let decimals = exponent == 1 ? 0 : exponent == 2 ? 1 : 2
        let number = Self.roundedHalfEven((Double(magnitude) / scale).description, decimals: decimals)
        return "\(sign)\(number) \(units[exponent - 1])"
    }

    /// `digits` (a non-negative decimal in plain notation, as `Double.description` writes
    /// numbers below 2^53) rounded half to even at `decimals` places, trailing zeros dropped,
    /// thousands grouped with commas.
    private static func roundedHalfEven(_ digits: String, decimals: Int) -> String {
        let parts = digits.split(separator: ".", maxSplits: 1)
        var whole = Array(parts[0].utf8)
        let fraction = parts.count > 1 ? Array(parts[1].utf8) : []
        var kept = Array(fraction.prefix(decimals))
        let rest = fraction.dropFirst(decimals)
        let zero = UInt8(ascii: "0")
        var roundUp = false
        if let first = rest.first {
            if first > UInt8(ascii: "5") || (first == UInt8(ascii: "5") && rest.dropFirst().contains { $0 != zero }) {
                roundUp = true
            } else if first == UInt8(ascii: "5") {
                let last = kept.last ?? whole.last ?? zero
                roundUp = (last - zero) % 2 == 1
            }
        }
        // One more at the last kept place, carried into the whole part, then a new leading digit.
        if roundUp, addOne(&kept), addOne(&whole) {
            whole.insert(UInt8(ascii: "1"), at: 0)
        }
        while kept.last == zero { kept.removeLast() }
        let integer = grouped(String(decoding: whole, as: UTF8.self))
        return kept.isEmpty ? integer : "\(integer).\(String(decoding: kept, as: UTF8.self))"
    }

    /// Adds one to the decimal digits, in place; true when the carry leaves the first digit
    /// (or there are none), for the digits before them to take.
    private static func addOne(_ digits: inout [UInt8]) -> Bool {
        for index in digits.indices.reversed() {
            if digits[index] != UInt8(ascii: "9") {
                digits[index] += 1
                return false
            }
            digits[index] = UInt8(ascii: "0")
        }
        return true
    }

    /// Thousands separated by commas: "1,000".
    private static func grouped(_ digits: String) -> String {
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }
}
