/// A set of Unicode scalar values kept as sorted, disjoint, non-adjacent ranges, so that
/// regular-expression classes and their complements stay small however wide they are.
///
/// Values are code points (`0...0x10FFFF`); surrogates may appear inside a range, which is
/// harmless because no decoded text contains them.
package struct UnicodeScalarSet: Hashable, Sendable {
    package static let maximum: UInt32 = 0x10FFFF

    /// The ranges, sorted and merged.
    package private(set) var ranges: [ClosedRange<UInt32>]

    /// The empty set.
    package init() {
        ranges = []
    }

    /// The set of these ranges, in any order, overlapping or not.
    package init(_ ranges: [ClosedRange<UInt32>]) {
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
    package init(scalar: UInt32) {
        self.init([scalar...scalar])
    }

    /// The set of the scalars of `text`.
    package init(characters text: String) {
        self.init(text.unicodeScalars.map { $0.value...$0.value })
    }

    package static let all = UnicodeScalarSet([0...maximum])
    /// ECMAScript `\d`.
    package static let digits = UnicodeScalarSet([0x30...0x39])
    package var isEmpty: Bool { ranges.isEmpty }

    /// The only scalar of a one-scalar set.
    package var singleScalar: UInt32? {
        guard ranges.count == 1, ranges[0].lowerBound == ranges[0].upperBound else { return nil }
        return ranges[0].lowerBound
    }

    package func contains(_ scalar: UInt32) -> Bool {
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

    package func union(_ other: UnicodeScalarSet) -> UnicodeScalarSet {
        UnicodeScalarSet(ranges + other.ranges)
    }

    /// Every scalar not in the set.
    package var inverted: UnicodeScalarSet {
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

    package func subtracting(_ other: UnicodeScalarSet) -> UnicodeScalarSet {
        intersection(other.inverted)
    }

    package func intersection(_ other: UnicodeScalarSet) -> UnicodeScalarSet {
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
