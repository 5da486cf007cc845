/// A set of Unicode scalar values kept as sorted, disjoint, non-adjacent ranges, so that
/// regular-expression classes and their complements stay small however wide they are.
///
/// Values are code points (`0...0x10FFFF`); surrogates may appear inside a range, which is
/// harmless because no decoded text contains them.
struct UnicodeScalarSet: Hashable, Sendable {
    static let maximum: UInt32 = 0x10FFFF

    /// The ranges, sorted and merged.
    private(set) var ranges: [ClosedRange<UInt32>]

    /// The empty set.
    init() {
        ranges = []
    }

    /// The set of these ranges, in any order, overlapping or not.
    init(_ ranges: [ClosedRange<UInt32>]) {
        let sorted = ranges.filter { $0.lowerBound <= Self.maximum }
            .map { $0.lowerBound...min($0.upperBound, Self.maximum) }
            .sorted { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<UInt32>] = []
        for range in sorted {
            if let last = merged.last, Int(range.lowerBound) <= Int(last.upperBound) + 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        self.ranges = merged
    }

    /// The set of one scalar.
    init(scalar: UInt32) {
        self.init([scalar...scalar])
    }

    /// The set of the scalars of `text`.
    init(characters text: String) {
        self.init(text.unicodeScalars.map { $0.value...$0.value })
    }

    static let all = UnicodeScalarSet([0...maximum])
    /// ECMAScript `\d`.
    static let digits = UnicodeScalarSet([0x30...0x39])
    /// ECMAScript `\w`.
    static let wordCharacters = UnicodeScalarSet([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    /// ECMAScript `\s`: white space and line terminators.
    static let whitespace = UnicodeScalarSet([
        0x09...0x0D, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A, 0x2028...0x2029,
        0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF,
    ])
    /// ECMAScript line terminators, which `.` does not match.
    static let lineTerminators = UnicodeScalarSet([0x0A...0x0A, 0x0D...0x0D, 0x2028...0x2029])
    /// The scalars a JSON string must escape.
    static let jsonEscaped = UnicodeScalarSet([0x00...0x1F, 0x22...0x22, 0x5C...0x5C])

    var isEmpty: Bool { ranges.isEmpty }

    /// The only scalar of a one-scalar set.
    var singleScalar: UInt32? {
        guard ranges.count == 1, ranges[0].lowerBound == ranges[0].upperBound else { return nil }
        return ranges[0].lowerBound
    }

    func contains(_ scalar: UInt32) -> Bool {
        var low = 0
        var high = ranges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < scalar {
                low = middle + 1
            } else if ranges[middle].lowerBound > scalar {
                high = middle - 1
            } else {
                return true
            }
        }
        return false
    }

    func union(_ other: UnicodeScalarSet) -> UnicodeScalarSet {
        UnicodeScalarSet(ranges + other.ranges)
    }

    /// Every scalar not in the set.
    var inverted: UnicodeScalarSet {
        var result: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for range in ranges {
            if range.lowerBound > next { result.append(next...(range.lowerBound - 1)) }
            if range.upperBound == Self.maximum { return UnicodeScalarSet(result) }
            next = range.upperBound + 1
        }
        result.append(next...Self.maximum)
        return UnicodeScalarSet(result)
    }

    func subtracting(_ other: UnicodeScalarSet) -> UnicodeScalarSet {
        intersection(other.inverted)
    }

    func intersection(_ other: UnicodeScalarSet) -> UnicodeScalarSet {
        var result: [ClosedRange<UInt32>] = []
        var i = 0
        var j = 0
        while i < ranges.count, j < other.ranges.count {
            let low = max(ranges[i].lowerBound, other.ranges[j].lowerBound)
            let high = min(ranges[i].upperBound, other.ranges[j].upperBound)
            if low <= high { result.append(low...high) }
            if ranges[i].upperBound < other.ranges[j].upperBound {
                i += 1
            } else {
                j += 1
            }
        }
        return UnicodeScalarSet(result)
    }
}
