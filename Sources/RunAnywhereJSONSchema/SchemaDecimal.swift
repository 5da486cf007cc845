import RunAnywhereJSON

/// A decimal number kept as its digits, so that schema bounds and JSON numbers compare
/// exactly (a `Double` cannot hold every 64-bit integer, an `Int64` no fraction) and so that
/// digit-range grammars can be written from any bound without arithmetic overflow.
struct SchemaDecimal: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Whether the number is below zero (never for zero itself).
    private(set) var isNegative: Bool
    /// The digits before the point, without leading zeros; `[0]` below one.
    private(set) var integerDigits: [UInt8]
    /// The digits after the point, without trailing zeros.
    private(set) var fractionDigits: [UInt8]

    init(isNegative: Bool, integerDigits: [UInt8], fractionDigits: [UInt8] = []) {
        var integer = Array(integerDigits.drop { $0 == 0 })
        if integer.isEmpty { integer = [0] }
        var fraction = fractionDigits
        while fraction.last == 0 { fraction.removeLast() }
        self.integerDigits = integer
        self.fractionDigits = fraction
        self.isNegative = isNegative && !(integer == [0] && fraction.isEmpty)
    }

    init(_ value: Int64) {
        let digits = String(value.magnitude).utf8.map { $0 - UInt8(ascii: "0") }
        self.init(isNegative: value < 0, integerDigits: digits)
    }

    /// The decimal Swift prints for `value` (the shortest that reads back as the same
    /// `Double`); `nil` for infinities and NaN.
    init?(_ value: Double) {
        guard value.isFinite else { return nil }
        self.init(text: "\(value)")
    }

    /// The number's value; `nil` for anything but a number.
    init?(_ value: JSONValue) {
        switch value {
        case .integer(let integer): self.init(integer)
        case .number(let double): self.init(double)
        default: return nil
        }
    }

    /// Reads `[-]digits[.digits][e[+-]digits]`, as Swift prints a `Double`.
    init?(text: String) {
        var scalars = Substring(text)
        let negative = scalars.hasPrefix("-")
        if negative { scalars.removeFirst() }
        var exponent = 0
        if let e = scalars.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let value = Int(scalars[scalars.index(after: e)...]), value.magnitude < 10_000 else { return nil }
            exponent = value
            scalars = scalars[..<e]
        }
        let parts = scalars.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, !first.isEmpty else { return nil }
        let integerText = first
        let fractionText = parts.count > 1 ? parts[1] : ""
        guard (integerText + fractionText).allSatisfy(\.isASCII), (integerText + fractionText).allSatisfy(\.isNumber)
        else { return nil }
        let digits = (integerText + fractionText).utf8.map { $0 - UInt8(ascii: "0") }
        let point = integerText.count + exponent
        if point <= 0 {
            self.init(
                isNegative: negative,
                integerDigits: [0],
                fractionDigits: Array(repeating: 0, count: -point) + digits
            )
        } else if point >= digits.count {
            self.init(isNegative: negative, integerDigits: digits + Array(repeating: 0, count: point - digits.count))
        } else {
            self.init(
                isNegative: negative,
                integerDigits: Array(digits[..<point]),
                fractionDigits: Array(digits[point...])
            )
        }
    }

    static let zero = SchemaDecimal(isNegative: false, integerDigits: [0])

    var isZero: Bool { integerDigits == [0] && fractionDigits.isEmpty }
    var isInteger: Bool { fractionDigits.isEmpty }

    /// The absolute value.
    var magnitude: SchemaDecimal {
        SchemaDecimal(isNegative: false, integerDigits: integerDigits, fractionDigits: fractionDigits)
    }

    var negated: SchemaDecimal {
        SchemaDecimal(isNegative: !isNegative, integerDigits: integerDigits, fractionDigits: fractionDigits)
    }

    /// The smallest integer not below the number.
    func ceiling() -> SchemaDecimal {
        if isInteger { return self }
        let truncated = SchemaDecimal(isNegative: isNegative, integerDigits: integerDigits)
        return isNegative ? truncated : truncated.incremented()
    }

    /// The largest integer not above the number.
    func floor() -> SchemaDecimal {
        if isInteger { return self }
        let truncated = SchemaDecimal(isNegative: isNegative, integerDigits: integerDigits)
        return isNegative ? truncated.decremented() : truncated
    }

    /// The integer part plus one (for integers).
    func incremented() -> SchemaDecimal {
        if isNegative {
            return SchemaDecimal(isNegative: true, integerDigits: Self.subtractOne(integerDigits))
        }
        return SchemaDecimal(isNegative: false, integerDigits: Self.addOne(integerDigits))
    }

    /// The integer part minus one (for integers).
    func decremented() -> SchemaDecimal {
        if isNegative || isZero {
            return SchemaDecimal(isNegative: true, integerDigits: Self.addOne(integerDigits))
        }
        return SchemaDecimal(isNegative: false, integerDigits: Self.subtractOne(integerDigits))
    }

    private static func addOne(_ digits: [UInt8]) -> [UInt8] {
        var result = digits
        var index = result.count - 1
        while index >= 0 {
            if result[index] < 9 {
                result[index] += 1
                return result
            }
            result[index] = 0
            index -= 1
        }
        return [1] + result
    }

    /// For a positive integer.
    private static func subtractOne(_ digits: [UInt8]) -> [UInt8] {
        var result = digits
        var index = result.count - 1
        while index >= 0 {
            if result[index] > 0 {
                result[index] -= 1
                return result
            }
            result[index] = 9
            index -= 1
        }
        return [0]
    }

    static func < (lhs: SchemaDecimal, rhs: SchemaDecimal) -> Bool {
        if lhs.isNegative != rhs.isNegative { return lhs.isNegative }
        let order = compareMagnitudes(lhs, rhs)
        return lhs.isNegative ? order > 0 : order < 0
    }

    /// -1, 0 or 1 as |lhs| is below, equal to or above |rhs|.
    static func compareMagnitudes(_ lhs: SchemaDecimal, _ rhs: SchemaDecimal) -> Int {
        if lhs.integerDigits.count != rhs.integerDigits.count {
            return lhs.integerDigits.count < rhs.integerDigits.count ? -1 : 1
        }
        for (a, b) in zip(lhs.integerDigits, rhs.integerDigits) where a != b {
            return a < b ? -1 : 1
        }
        for (a, b) in zip(lhs.fractionDigits, rhs.fractionDigits) where a != b {
            return a < b ? -1 : 1
        }
        if lhs.fractionDigits.count == rhs.fractionDigits.count { return 0 }
        return lhs.fractionDigits.count < rhs.fractionDigits.count ? -1 : 1
    }

    var description: String {
        var text = isNegative ? "-" : ""
        text += String(decoding: integerDigits.map { $0 + UInt8(ascii: "0") }, as: UTF8.self)
        if !fractionDigits.isEmpty {
            text += "." + String(decoding: fractionDigits.map { $0 + UInt8(ascii: "0") }, as: UTF8.self)
        }
        return text
    }
}
