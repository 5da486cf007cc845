import RunAnywhereGBNF
import RunAnywhereJSON

/// Grammars for the JSON numbers within bounds, written digit by digit so that the model can
/// only write numbers in range (as llama.cpp's `_generate_min_max_int`, extended to any
/// length and to decimals).
///
/// Without an upper (lower) bound, magnitudes stop at sixteen digits, as in llama.cpp's
/// `integral-part`: a longer number would not survive a round trip through `Double` and a
/// small model that starts writing digits may not stop. Decimals with bounds are written
/// without exponent and with at most fifteen significant digits, the precision at which
/// every decimal keeps its order after conversion to `Double`, so a number the grammar
/// allows is also within the bounds once parsed.
enum NumberRangeGrammar {
    /// One end of a range.
    struct Bound: Hashable, Sendable {
        var value: SchemaDecimal
        var exclusive: Bool
    }

    /// Sixteen nines: the largest magnitude written when a side is unbounded.
    static let implicitLimit = SchemaDecimal(isNegative: false, integerDigits: Array(repeating: 9, count: 16))
    static let significantDigits = 15

    // MARK: Integers

    /// The integers from `lower` to `upper` (both integers, inclusive; `nil`: unbounded).
    /// `nil` when there are none.
    static func integers(from lower: SchemaDecimal?, to upper: SchemaDecimal?) -> GBNFExpression? {
        if let lower, let upper, upper < lower { return nil }
        let cap = capMagnitude(lower, upper)
        let low = max(lower ?? cap.negated, cap.negated)
        let high = min(upper ?? cap, cap)
        var alternatives: [GBNFExpression] = []
        if low.isNegative {
            let smallest = high.isNegative ? high.magnitude : SchemaDecimal(1)
            let pieces = digitRanges(from: smallest.integerDigits, to: low.magnitude.integerDigits)
            alternatives.append(.concat([.literal("-"), .anyOf(merged(pieces))]))
        }
        if !high.isNegative {
            let smallest = low.isNegative ? SchemaDecimal.zero : low
            let pieces = digitRanges(from: smallest.integerDigits, to: high.integerDigits)
            alternatives.append(.anyOf(merged(pieces)))
        }
        return alternatives.isEmpty ? nil : .anyOf(alternatives)
    }

    /// Sixteen nines when the range meets them, otherwise as many nines as the longer bound
    /// has digits, so that a range far from zero keeps its numbers.
    private static func capMagnitude(_ lower: SchemaDecimal?, _ upper: SchemaDecimal?) -> SchemaDecimal {
        let meetsCap =
            (lower.map { $0 <= implicitLimit } ?? true) && (upper.map { $0 >= implicitLimit.negated } ?? true)
        if meetsCap { return implicitLimit }
        let digits = max(lower?.integerDigits.count ?? 0, upper?.integerDigits.count ?? 0)
        return SchemaDecimal(isNegative: false, integerDigits: Array(repeating: 9, count: digits))
    }

    /// The non-negative integers `from...to` (digits without leading zeros, `from <= to`),
    /// one expression per number of digits.
    static func digitRanges(from: [UInt8], to: [UInt8]) -> [(expression: GBNFExpression, digits: Int, whole: Bool)] {
        guard from.count <= to.count else { return [] }
        var pieces: [(GBNFExpression, Int, Bool)] = []
        for length in from.count...to.count {
            let first = [1] + Array(repeating: UInt8(0), count: length - 1)
            let last = Array(repeating: UInt8(9), count: length)
            let low = length == from.count ? from : first
            let high = length == to.count ? to : last
            if compare(low, high) <= 0 {
                pieces.append((sameLength(low[...], high[...]), length, low == first && high == last))
            }
        }
        return pieces
    }

    /// The pieces with runs of whole lengths (every number of so many digits) written as one
    /// `[1-9] [0-9]{m,n}`.
    private static func merged(_ pieces: [(expression: GBNFExpression, digits: Int, whole: Bool)]) -> [GBNFExpression] {
        var result: [GBNFExpression] = []
        var run: ClosedRange<Int>?
        func flush() {
            guard let lengths = run else { return }
            result.append(
                .concat([
                    .characters(UnicodeScalarSet([0x31...0x39])),
                    .repeating(.digit, min: lengths.lowerBound - 1, max: lengths.upperBound - 1),
                ])
            )
            run = nil
        }
        for piece in pieces {
            if piece.whole {
                run = run.map { $0.lowerBound...piece.digits } ?? piece.digits...piece.digits
            } else {
                flush()
                result.append(piece.expression)
            }
        }
        flush()
        return result
    }

    private static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return 0
    }

    /// The digit strings from `from` to `to`, both of the same length.
    private static func sameLength(_ from: ArraySlice<UInt8>, _ to: ArraySlice<UInt8>) -> GBNFExpression {
        let common = zip(from, to).prefix { $0 == $1 }.count
        let prefix = GBNFExpression.literal(text(from.prefix(common)))
        if common == from.count { return prefix }
        let first = from[from.startIndex + common]
        let last = to[to.startIndex + common]
        let restFrom = from.dropFirst(common + 1)
        let restTo = to.dropFirst(common + 1)
        let tail = restFrom.count
        var alternatives: [GBNFExpression] = []
        var middleLow = first
        var middleHigh = last
        if !restFrom.allSatisfy({ $0 == 0 }) {
            let nines = Array(repeating: UInt8(9), count: tail)[...]
            alternatives.append(.concat([.literal(text([first])), sameLength(restFrom, nines)]))
            middleLow += 1
        }
        var highAlternative: GBNFExpression?
        if !restTo.allSatisfy({ $0 == 9 }) {
            let zeros = Array(repeating: UInt8(0), count: tail)[...]
            highAlternative = .concat([.literal(text([last])), sameLength(zeros, restTo)])
            middleHigh -= 1
        }
        if middleLow <= middleHigh {
            alternatives.append(.concat([digits(middleLow, middleHigh), .repeating(.digit, min: tail, max: tail)]))
        }
        if let highAlternative { alternatives.append(highAlternative) }
        return .concat([prefix, .anyOf(alternatives)])
    }

    private static func digits(_ low: UInt8, _ high: UInt8) -> GBNFExpression {
        low == high
            ? .literal(text([low])) : .characters(UnicodeScalarSet([(0x30 + UInt32(low))...(0x30 + UInt32(high))]))
    }

    private static func text(_ digits: some Sequence<UInt8>) -> String {
        String(decoding: digits.map { $0 + UInt8(ascii: "0") }, as: UTF8.self)
    }

    // MARK: Decimals

    /// The numbers between `lower` and `upper`, written without exponent; `nil` when the
    /// grammar can write none of them.
    static func numbers(lower: Bound?, upper: Bound?) -> GBNFExpression? {
        // Below 10^16 (exclusive), so that the integer parts run to all nines.
        let limit = capMagnitude(lower?.value, upper?.value).incremented()
        var low = lower ?? Bound(value: limit.negated, exclusive: true)
        var high = upper ?? Bound(value: limit, exclusive: true)
        if low.value < limit.negated { low = Bound(value: limit.negated, exclusive: true) }
        if high.value > limit { high = Bound(value: limit, exclusive: true) }
        if high.value < low.value || (high.value == low.value && (low.exclusive || high.exclusive)) { return nil }
        var alternatives: [GBNFExpression] = []
        if low.value.isNegative {
            let smallest =
                high.value.isNegative
                ? Bound(value: high.value.magnitude, exclusive: high.exclusive)
                : Bound(value: .zero, exclusive: true)
            if let magnitude = magnitudes(smallest, Bound(value: low.value.magnitude, exclusive: low.exclusive)) {
                alternatives.append(.concat([.literal("-"), magnitude]))
            }
        }
        if !high.value.isNegative, !(high.value.isZero && high.exclusive) {
            let smallest = low.value.isNegative ? Bound(value: .zero, exclusive: false) : low
            if let magnitude = magnitudes(smallest, high) { alternatives.append(magnitude) }
        }
        return alternatives.isEmpty ? nil : .anyOf(alternatives)
    }

    /// Non-negative numbers between the bounds.
    private static func magnitudes(_ lower: Bound, _ upper: Bound) -> GBNFExpression? {
        if upper.value < lower.value || (upper.value == lower.value && (lower.exclusive || upper.exclusive)) {
            return nil
        }
        let lowInteger = lower.value.integerDigits
        let highInteger = upper.value.integerDigits
        let lowFraction = FractionBound(digits: lower.value.fractionDigits[...], inclusive: !lower.exclusive)
        let highFraction = FractionBound(digits: upper.value.fractionDigits[...], inclusive: !upper.exclusive)
        if lowInteger == highInteger {
            let fraction = optionalFraction(lowFraction, highFraction, digits: significantDigits - lowInteger.count)
            return fraction.map { .concat([.literal(text(lowInteger)), $0]) }
        }
        var alternatives: [GBNFExpression] = []
        if let fraction = optionalFraction(lowFraction, nil, digits: significantDigits - lowInteger.count) {
            alternatives.append(.concat([.literal(text(lowInteger)), fraction]))
        }
        let afterLow = SchemaDecimal(isNegative: false, integerDigits: lowInteger).incremented()
        let beforeHigh = SchemaDecimal(isNegative: false, integerDigits: highInteger).decremented()
        if afterLow <= beforeHigh {
            for piece in digitRanges(from: afterLow.integerDigits, to: beforeHigh.integerDigits) {
                let fractionDigits = significantDigits - piece.digits
                guard fractionDigits > 0 else {
                    alternatives.append(piece.expression)
                    continue
                }
                let fraction = GBNFExpression.concat([
                    .literal("."), .repeating(.digit, min: 1, max: fractionDigits),
                ])
                alternatives.append(.concat([piece.expression, .optional(fraction)]))
            }
        }
        if let fraction = optionalFraction(nil, highFraction, digits: significantDigits - highInteger.count) {
            alternatives.append(.concat([.literal(text(highInteger)), fraction]))
        }
        return alternatives.isEmpty ? nil : .anyOf(alternatives)
    }

    /// The digits after the point, compared as if padded with zeros.
    private struct FractionBound {
        var digits: ArraySlice<UInt8>
        var inclusive: Bool

        var rest: FractionBound { FractionBound(digits: digits.dropFirst(), inclusive: inclusive) }
    }

    /// Nothing, or a point and up to `digits` digits, within the bounds.
    private static func optionalFraction(
        _ lower: FractionBound?,
        _ upper: FractionBound?,
        digits: Int
    ) -> GBNFExpression? {
        var alternatives: [GBNFExpression] = []
        if zerosSatisfy(lower, upper) { alternatives.append(.empty) }
        if digits > 0, let fraction = fractionDigits(lower, upper, remaining: digits, mayEnd: false) {
            alternatives.append(.concat([.literal("."), fraction]))
        }
        return alternatives.isEmpty ? nil : .anyOf(alternatives)
    }

    private static func zerosSatisfy(_ lower: FractionBound?, _ upper: FractionBound?) -> Bool {
        let lowerHolds = lower.map { $0.inclusive && $0.digits.allSatisfy { $0 == 0 } } ?? true
        let upperHolds = upper.map { $0.inclusive || $0.digits.contains { $0 != 0 } } ?? true
        return lowerHolds && upperHolds
    }

    /// Up to `remaining` digits (at least one unless `mayEnd`) within the bounds.
    private static func fractionDigits(
        _ lower: FractionBound?,
        _ upper: FractionBound?,
        remaining: Int,
        mayEnd: Bool
    ) -> GBNFExpression? {
        // A lower bound of zeros that allows zero allows everything.
        let lower = lower.flatMap { $0.inclusive && $0.digits.allSatisfy { $0 == 0 } ? nil : $0 }
        if lower == nil, let upper, upper.digits.allSatisfy({ $0 == 0 }) {
            // At the upper bound itself: only zeros remain.
            guard upper.inclusive, remaining > 0 || mayEnd else { return nil }
            return .repeating(.literal("0"), min: mayEnd ? 0 : 1, max: remaining)
        }
        if let lower, upper == nil, lower.digits.allSatisfy({ $0 == 0 }) {
            // Just above the lower bound: anything but zeros, written ending in a non-zero
            // digit (trailing zeros add nothing) to keep the grammar small.
            guard remaining > 0 else { return nil }
            return .concat([.repeating(.digit, min: 0, max: remaining - 1), digits(1, 9)])
        }
        var alternatives: [GBNFExpression] = []
        if mayEnd, zerosSatisfy(lower, upper) { alternatives.append(.empty) }
        guard remaining > 0 else { return alternatives.isEmpty ? nil : .anyOf(alternatives) }
        let low = lower.map { Int($0.digits.first ?? 0) }
        let high = upper.map { Int($0.digits.first ?? 0) }
        if let low, let high, low > high { return alternatives.isEmpty ? nil : .anyOf(alternatives) }
        if let low, let lower, let high, let upper, low == high {
            if let tail = fractionDigits(lower.rest, upper.rest, remaining: remaining - 1, mayEnd: true) {
                alternatives.append(.concat([.literal(text([UInt8(low)])), tail]))
            }
            return alternatives.isEmpty ? nil : .anyOf(alternatives)
        }
        if let low, let lower,
            let tail = fractionDigits(lower.rest, nil, remaining: remaining - 1, mayEnd: true)
        {
            alternatives.append(.concat([.literal(text([UInt8(low)])), tail]))
        }
        let freeLow = low.map { $0 + 1 } ?? 0
        let freeHigh = high.map { $0 - 1 } ?? 9
        if freeLow == 0, freeHigh == 9 {
            alternatives.append(.repeating(.digit, min: 1, max: remaining))
        } else if freeLow <= freeHigh {
            alternatives.append(
                .concat([
                    digits(UInt8(freeLow), UInt8(freeHigh)), .repeating(.digit, min: 0, max: remaining - 1),
                ])
            )
        }
        if let high, let upper,
            let tail = fractionDigits(nil, upper.rest, remaining: remaining - 1, mayEnd: true)
        {
            alternatives.append(.concat([.literal(text([UInt8(high)])), tail]))
        }
        return alternatives.isEmpty ? nil : .anyOf(alternatives)
    }

    // MARK: Bounds of a schema

    /// The tighter of `minimum` and `exclusiveMinimum` (also the draft-4 Boolean form).
    static func lowerBound(of schema: JSONObject) -> Bound? {
        bound(schema, inclusiveKey: "minimum", exclusiveKey: "exclusiveMinimum", tighter: >)
    }

    /// The tighter of `maximum` and `exclusiveMaximum` (also the draft-4 Boolean form).
    static func upperBound(of schema: JSONObject) -> Bound? {
        bound(schema, inclusiveKey: "maximum", exclusiveKey: "exclusiveMaximum", tighter: <)
    }

    private static func bound(
        _ schema: JSONObject,
        inclusiveKey: String,
        exclusiveKey: String,
        tighter: (SchemaDecimal, SchemaDecimal) -> Bool
    ) -> Bound? {
        var result: Bound?
        if let value = schema[inclusiveKey].flatMap(SchemaDecimal.init) {
            result = Bound(value: value, exclusive: schema[exclusiveKey] == .bool(true))
        }
        if let value = schema[exclusiveKey].flatMap(SchemaDecimal.init) {
            if let current = result, !tighter(value, current.value), value != current.value {
                return current
            }
            result = Bound(value: value, exclusive: true)
        }
        return result
    }
}
