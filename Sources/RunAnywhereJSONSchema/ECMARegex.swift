import RunAnywhereGBNF

/// A JSON Schema `pattern` (ECMA-262 syntax, without flags) parsed into the subset a grammar
/// can express: literals, classes, `.`, the escapes `\d \w \s` (and their negations),
/// groups, alternation, quantifiers and the anchors `^` `$` at the ends of the pattern.
///
/// Lookaround, backreferences, word boundaries and Unicode property escapes have no grammar
/// equivalent and are refused as unsupported; text that is no regular expression at all
/// (an unbalanced parenthesis, a quantifier with nothing to repeat) is refused as invalid.
struct ECMARegex: Sendable {
    /// Why a pattern cannot be used.
    enum Failure: Error, Equatable {
        /// Not a regular expression.
        case invalid(String)
        /// A regular expression the grammar cannot express.
        case unsupported(String)
    }

    /// The parsed pattern.
    let root: RegexNode

    private static let maximumNesting = 64
    private static let maximumCount = 100_000

    init(parsing pattern: String) throws(Failure) {
        var parser = Parser(scalars: Array(pattern.unicodeScalars))
        let node = try parser.parseDisjunction(depth: 0)
        if parser.position < parser.scalars.count {
            throw .invalid("unmatched ')'")
        }
        root = node
    }

    /// The pattern in Swift `Regex` syntax, every character spelled out, so that the
    /// validator matches exactly what the grammar allows.
    var swiftPattern: String { root.swiftPattern }

    // MARK: Parser

    private struct Parser {
        let scalars: [Unicode.Scalar]
        var position = 0

        var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

        func peek(_ offset: Int) -> Unicode.Scalar? {
            position + offset < scalars.count ? scalars[position + offset] : nil
        }

        mutating func parseDisjunction(depth: Int) throws(Failure) -> RegexNode {
            guard depth <= ECMARegex.maximumNesting else { throw .unsupported("groups nested too deeply") }
            var alternatives = [try parseAlternative(depth: depth)]
            while current == "|" {
                position += 1
                alternatives.append(try parseAlternative(depth: depth))
            }
            return alternatives.count == 1 ? alternatives[0] : .alternation(alternatives)
        }

        private mutating func parseAlternative(depth: Int) throws(Failure) -> RegexNode {
            var terms: [RegexNode] = []
            while let scalar = current, scalar != "|", scalar != ")" {
                let atom: RegexNode
                switch scalar {
                case "^":
                    position += 1
                    terms.append(.start)
                    try refuseQuantifier()
                    continue
                case "$":
                    position += 1
                    terms.append(.end)
                    try refuseQuantifier()
                    continue
                case "(":
                    atom = try parseGroup(depth: depth)
                case ".":
                    position += 1
                    atom = .characters(UnicodeScalarSet.lineTerminators.inverted)
                case "[":
                    atom = .characters(try parseClass())
                case "\\":
                    atom = .characters(try parseEscape(inClass: false).set)
                case "*", "+", "?":
                    throw .invalid("nothing to repeat before '\(scalar)'")
                case "{" where quantifierAhead() != nil:
                    throw .invalid("nothing to repeat before '{'")
                default:
                    position += 1
                    atom = .characters(UnicodeScalarSet(scalar: scalar.value))
                }
                terms.append(try parseQuantifier(atom))
            }
            return terms.count == 1 ? terms[0] : .sequence(terms)
        }

        private mutating func refuseQuantifier() throws(Failure) {
            if let scalar = current,
                "*+?".unicodeScalars.contains(scalar) || (scalar == "{" && quantifierAhead() != nil)
            {
                throw .invalid("nothing to repeat before '\(scalar)'")
            }
        }

        private mutating func parseGroup(depth: Int) throws(Failure) -> RegexNode {
            position += 1
            if current == "?" {
                switch (peek(1), peek(2)) {
                case (":", _):
                    position += 2
                case ("=", _), ("!", _), ("<", "="), ("<", "!"):
                    throw .unsupported("lookaround assertions")
                case ("<", _):
                    // A named group matches like any other group.
                    position += 2
                    while let scalar = current, scalar != ">" { position += 1 }
                    guard current == ">" else { throw .invalid("unterminated group name") }
                    position += 1
                default:
                    throw .invalid("invalid group")
                }
            }
            let inner = try parseDisjunction(depth: depth + 1)
            guard current == ")" else { throw .invalid("missing ')'") }
            position += 1
            return inner
        }

        /// `{n}`, `{n,}` or `{n,m}` at the current position, without consuming it.
        private func quantifierAhead() -> (min: Int, max: Int?, length: Int)? {
            guard current == "{" else { return nil }
            var index = position + 1
            // A count too long for Int reads as Int.max, which the caller refuses.
            func number() -> Int? {
                var value = 0
                var seen = false
                while index < scalars.count, ("0"..."9").contains(scalars[index]) {
                    let digit = Int(scalars[index].value - 0x30)
                    value = value > (Int.max - digit) / 10 ? Int.max : value * 10 + digit
                    seen = true
                    index += 1
                }
                return seen ? value : nil
            }
            guard let low = number() else { return nil }
            var high: Int? = low
            if index < scalars.count, scalars[index] == "," {
                index += 1
                high = number()
            }
            guard index < scalars.count, scalars[index] == "}" else { return nil }
            return (low, high, index + 1 - position)
        }

        private mutating func parseQuantifier(_ atom: RegexNode) throws(Failure) -> RegexNode {
            var node = atom
            let bounds: (Int, Int?)
            switch current {
            case "*": bounds = (0, nil)
            case "+": bounds = (1, nil)
            case "?": bounds = (0, 1)
            case "{":
                guard let quantifier = quantifierAhead() else { return node }
                if let high = quantifier.max, high < quantifier.min {
                    throw .invalid("numbers out of order in {\(quantifier.min),\(high)}")
                }
                guard quantifier.min <= ECMARegex.maximumCount, (quantifier.max ?? 0) <= ECMARegex.maximumCount
                else { throw .unsupported("a repetition count above \(ECMARegex.maximumCount)") }
                position += quantifier.length - 1
                bounds = (quantifier.min, quantifier.max)
            default:
                return node
            }
            position += 1
            // A lazy quantifier matches the same strings.
            if current == "?" { position += 1 }
            node = .repetition(atom, min: bounds.0, max: bounds.1)
            if let next = current, "*+?".unicodeScalars.contains(next) || (next == "{" && quantifierAhead() != nil) {
                throw .invalid("nothing to repeat before '\(next)'")
            }
            return node
        }

        private mutating func parseClass() throws(Failure) -> UnicodeScalarSet {
            position += 1
            var negated = false
            if current == "^" {
                negated = true
                position += 1
            }
            var set = UnicodeScalarSet()
            while true {
                guard let scalar = current else { throw .invalid("missing ']'") }
                if scalar == "]" {
                    position += 1
                    break
                }
                let low = try parseClassAtom()
                if current == "-", let next = peek(1), next != "]" {
                    position += 1
                    let high = try parseClassAtom()
                    guard let from = low.single, let to = high.single else {
                        throw .unsupported("a range with a class escape such as \\d")
                    }
                    guard from <= to else { throw .invalid("range out of order in character class") }
                    set = set.union(UnicodeScalarSet([from...to]))
                } else {
                    set = set.union(low.set)
                }
            }
            return negated ? set.inverted : set
        }

        private mutating func parseClassAtom() throws(Failure) -> (set: UnicodeScalarSet, single: UInt32?) {
            guard let scalar = current else { throw .invalid("missing ']'") }
            if scalar == "\\" { return try parseEscape(inClass: true) }
            position += 1
            return (UnicodeScalarSet(scalar: scalar.value), scalar.value)
        }

        /// An escape at the current backslash: a set, and its scalar when it is one.
        private mutating func parseEscape(inClass: Bool) throws(Failure) -> (set: UnicodeScalarSet, single: UInt32?) {
            position += 1
            guard let scalar = current else { throw .invalid("'\\' at the end of the pattern") }
            position += 1
            func one(_ value: UInt32) -> (UnicodeScalarSet, UInt32?) { (UnicodeScalarSet(scalar: value), value) }
            switch scalar {
            case "d": return (.digits, nil)
            case "D": return (UnicodeScalarSet.digits.inverted, nil)
            case "w": return (.wordCharacters, nil)
            case "W": return (UnicodeScalarSet.wordCharacters.inverted, nil)
            case "s": return (.whitespace, nil)
            case "S": return (UnicodeScalarSet.whitespace.inverted, nil)
            case "t": return one(0x09)
            case "n": return one(0x0A)
            case "v": return one(0x0B)
            case "f": return one(0x0C)
            case "r": return one(0x0D)
            case "b" where inClass: return one(0x08)
            case "b", "B": throw .unsupported("word boundaries (\\\(scalar))")
            case "0":
                if let next = current, ("0"..."9").contains(next) { throw .unsupported("octal escapes") }
                return one(0)
            case "1"..."9": throw .unsupported("backreferences")
            case "k": throw .unsupported("named backreferences")
            case "p", "P": throw .unsupported("Unicode property escapes (\\\(scalar))")
            case "c":
                guard let letter = current, letter.isASCII, letter.properties.isAlphabetic else {
                    throw .unsupported("'\\c' without a control letter")
                }
                position += 1
                return one(letter.value % 32)
            case "x":
                return one(try hexadecimal(2))
            case "u":
                if current == "{" { throw .unsupported("'\\u{...}' escapes (they need the u flag)") }
                let high = try hexadecimal(4)
                if (0xD800...0xDBFF).contains(high), current == "\\", peek(1) == "u" {
                    let saved = position
                    position += 2
                    if let low = try? hexadecimal(4), (0xDC00...0xDFFF).contains(low) {
                        return one(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                    }
                    position = saved
                }
                guard !(0xD800...0xDFFF).contains(high) else { throw .unsupported("a lone surrogate escape") }
                return one(high)
            default:
                if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                    throw .unsupported("the escape '\\\(scalar)', which regular expression dialects read differently")
                }
                return one(scalar.value)
            }
        }

        private mutating func hexadecimal(_ count: Int) throws(Failure) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<count {
                guard let scalar = current, let digit = Character(scalar).hexDigitValue, scalar.isASCII else {
                    throw .unsupported("an incomplete hexadecimal escape")
                }
                value = value * 16 + UInt32(digit)
                position += 1
            }
            return value
        }
    }
}

/// A parsed regular expression.
indirect enum RegexNode: Hashable, Sendable {
    /// One scalar of the set.
    case characters(UnicodeScalarSet)
    /// The terms in order.
    case sequence([RegexNode])
    /// Any one alternative.
    case alternation([RegexNode])
    /// The node `min` to `max` times.
    case repetition(RegexNode, min: Int, max: Int?)
    /// `^`.
    case start
    /// `$`.
    case end

    /// The shortest and longest match, in scalars (`nil`: unbounded).
    var lengthRange: (min: Int, max: Int?) {
        let limit = Int(Int32.max)
        switch self {
        case .characters: return (1, 1)
        case .start, .end: return (0, 0)
        case .sequence(let terms):
            var low = 0
            var high: Int? = 0
            for term in terms {
                let range = term.lengthRange
                low = min(limit, low + range.min)
                high = high.flatMap { total in range.max.map { min(limit, total + $0) } }
            }
            return (low, high)
        case .alternation(let alternatives):
            let ranges = alternatives.map(\.lengthRange)
            let low = ranges.map(\.min).min() ?? 0
            let high: Int? = ranges.contains { $0.max == nil } ? nil : ranges.compactMap(\.max).max() ?? 0
            return (low, high)
        case .repetition(let item, let count, let maximum):
            let range = item.lengthRange
            let low = min(limit, range.min.multipliedReportingOverflow(by: count).partialValue)
            let high: Int?
            if range.max == 0 {
                high = 0
            } else if let itemMax = range.max, let maximum {
                let product = itemMax.multipliedReportingOverflow(by: maximum)
                high = product.overflow ? limit : min(limit, product.partialValue)
            } else {
                high = nil
            }
            return (low, high)
        }
    }

    /// Whether `^` or `$` occurs anywhere in the node.
    var containsAnchor: Bool {
        switch self {
        case .start, .end: return true
        case .characters: return false
        case .sequence(let nodes), .alternation(let nodes): return nodes.contains(where: \.containsAnchor)
        case .repetition(let item, _, _): return item.containsAnchor
        }
    }

    /// The terms of a sequence, or the node alone.
    var terms: [RegexNode] {
        if case .sequence(let terms) = self { return terms }
        return [self]
    }

    var swiftPattern: String {
        switch self {
        case .characters(let set):
            let ranges = set.ranges.compactMap(Self.swiftRange)
            return ranges.isEmpty ? "(?!)" : "[" + ranges.joined() + "]"
        case .sequence(let terms):
            return terms.map { term in
                if case .alternation = term { return "(?:" + term.swiftPattern + ")" }
                return term.swiftPattern
            }.joined()
        case .alternation(let alternatives):
            return alternatives.map(\.swiftPattern).joined(separator: "|")
        case .repetition(let item, let min, let max):
            let count = max.map { min == $0 ? "{\(min)}" : "{\(min),\($0)}" } ?? "{\(min),}"
            return "(?:" + item.swiftPattern + ")" + count
        case .start:
            return "^"
        case .end:
            return "$"
        }
    }

    /// A range without surrogates at its ends, which `Regex` cannot spell.
    private static func swiftRange(_ range: ClosedRange<UInt32>) -> String? {
        let surrogates: ClosedRange<UInt32> = 0xD800...0xDFFF
        let low = surrogates.contains(range.lowerBound) ? 0xE000 : range.lowerBound
        let high = surrogates.contains(range.upperBound) ? 0xD7FF : range.upperBound
        guard low <= high else { return nil }
        return low == high ? swiftScalar(low) : swiftScalar(low) + "-" + swiftScalar(high)
    }

    private static func swiftScalar(_ value: UInt32) -> String {
        "\\u{" + String(value, radix: 16) + "}"
    }
}
