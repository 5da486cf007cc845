/// A GBNF expression kept as a tree rather than text, so the converter can simplify it and
/// check the whole grammar (can every rule finish, is any rule left-recursive) before
/// llama.cpp sees it: llama.cpp rejects left recursion only when sampling starts, and a rule
/// that can never finish would let the model write until it runs out of tokens.
indirect enum GBNFExpression: Hashable, Sendable {
    /// Exactly this text.
    case literal(String)
    /// One scalar of the set.
    case characters(UnicodeScalarSet)
    /// A reference to a rule.
    case rule(String)
    /// The elements one after the other; no elements matches the empty text.
    case sequence([GBNFExpression])
    /// Any one of the alternatives.
    case choice([GBNFExpression])
    /// The expression `min` to `max` times (`nil`: no limit).
    case repetition(GBNFExpression, min: Int, max: Int?)

    /// The empty text.
    static let empty = GBNFExpression.sequence([])

    /// One digit, `[0-9]`.
    static let digit = GBNFExpression.characters(.digits)

    /// The elements in order: nested sequences flatten and adjacent literals merge.
    static func concat(_ elements: [GBNFExpression]) -> GBNFExpression {
        var flat: [GBNFExpression] = []
        for element in elements {
            let parts: [GBNFExpression]
            if case .sequence(let inner) = element {
                parts = inner
            } else {
                parts = [element]
            }
            for part in parts {
                if case .literal(let text) = part, text.isEmpty { continue }
                if case .literal(let text) = part, case .literal(let previous)? = flat.last {
                    flat[flat.count - 1] = .literal(previous + text)
                } else {
                    flat.append(part)
                }
            }
        }
        return flat.count == 1 ? flat[0] : .sequence(flat)
    }

    /// Any one of the alternatives: nested choices flatten and repeated alternatives go.
    static func anyOf(_ alternatives: [GBNFExpression]) -> GBNFExpression {
        var flat: [GBNFExpression] = []
        var seen = Set<GBNFExpression>()
        for alternative in alternatives {
            let parts: [GBNFExpression]
            if case .choice(let inner) = alternative {
                parts = inner
            } else {
                parts = [alternative]
            }
            for part in parts where seen.insert(part).inserted {
                flat.append(part)
            }
        }
        return flat.count == 1 ? flat[0] : .choice(flat)
    }

    /// The expression `min` to `max` times, simplified where that is plain.
    static func repeating(_ item: GBNFExpression, min: Int, max: Int?) -> GBNFExpression {
        if let max, max == 0 { return .empty }
        if min == 1, max == 1 { return item }
        if item == .empty { return .empty }
        return .repetition(item, min: min, max: max)
    }

    /// The expression or nothing.
    static func optional(_ item: GBNFExpression) -> GBNFExpression {
        repeating(item, min: 0, max: 1)
    }

    /// The JSON text of `value`, exactly.
    static func jsonLiteral(_ value: JSONValue) -> GBNFExpression {
        .literal(value.jsonText())
    }

    /// One character of a JSON string's contents whose decoded scalar is in `set`: the
    /// scalars JSON allows raw as themselves, `"` and `\` and control characters as escapes,
    /// so that the text is always a well-formed JSON string. `nil` when the set is empty.
    static func jsonStringCharacter(in set: UnicodeScalarSet) -> GBNFExpression? {
        if let scalar = set.singleScalar, let unicodeScalar = Unicode.Scalar(scalar) {
            return .literal(Self.jsonEscape(unicodeScalar))
        }
        var alternatives: [GBNFExpression] = []
        let raw = set.subtracting(.jsonEscaped)
        if !raw.isEmpty { alternatives.append(.characters(raw)) }
        if set.contains(0x22) { alternatives.append(.literal("\\\"")) }
        if set.contains(0x5C) { alternatives.append(.literal("\\\\")) }
        // Control characters: the short escapes JSON has, the others as \u000X and \u001X,
        // grouped so that a class such as `.` stays small.
        let controls = set.intersection(UnicodeScalarSet([0x00...0x1F]))
        let short: [(UInt32, Character)] = [(0x08, "b"), (0x09, "t"), (0x0A, "n"), (0x0C, "f"), (0x0D, "r")]
        let letters = String(short.filter { controls.contains($0.0) }.map(\.1))
        if !letters.isEmpty {
            alternatives.append(.concat([.literal("\\"), .characters(UnicodeScalarSet(characters: letters))]))
        }
        for high: UInt32 in [0, 1] {
            var digits = UnicodeScalarSet()
            for low: UInt32 in 0...15 {
                let scalar = high * 16 + low
                guard controls.contains(scalar), !short.contains(where: { $0.0 == scalar }) else { continue }
                let hex = String(low, radix: 16)
                digits = digits.union(UnicodeScalarSet(characters: hex + hex.uppercased()))
            }
            if let digit = digits.singleScalar.flatMap(Unicode.Scalar.init) {
                alternatives.append(.literal("\\u00\(high)" + String(digit)))
            } else if !digits.isEmpty {
                alternatives.append(.concat([.literal("\\u00\(high)"), .characters(digits)]))
            }
        }
        return alternatives.isEmpty ? nil : .anyOf(alternatives)
    }

    /// One hexadecimal digit, either case.
    static let hexDigit = GBNFExpression.characters(UnicodeScalarSet([0x30...0x39, 0x41...0x46, 0x61...0x66]))

    /// How JSON writes `scalar` inside a string.
    static func jsonEscape(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x22: return "\\\""
        case 0x5C: return "\\\\"
        case 0x08: return "\\b"
        case 0x0C: return "\\f"
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        case 0x00...0x1F:
            let hex = String(scalar.value, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: return String(scalar)
        }
    }

    // MARK: Text

    private enum Context {
        case top
        case sequenceElement
        case repeated
    }

    /// The expression as GBNF text, as the body of a rule.
    var gbnf: String { format(.top) }

    private func format(_ context: Context) -> String {
        switch self {
        case .literal(let text):
            return Self.formatLiteral(text)
        case .characters(let set):
            return Self.formatClass(set)
        case .rule(let name):
            return name
        case .sequence(let elements):
            if elements.isEmpty { return "\"\"" }
            let text = elements.map { $0.format(.sequenceElement) }.joined(separator: " ")
            return context == .repeated && elements.count > 1 ? "(" + text + ")" : text
        case .choice(let alternatives):
            let text = alternatives.map { $0.format(.top) }.joined(separator: " | ")
            return context == .top ? text : "(" + text + ")"
        case .repetition(let item, let min, let max):
            let suffix: String
            switch (min, max) {
            case (0, 1?): suffix = "?"
            case (0, nil): suffix = "*"
            case (1, nil): suffix = "+"
            case (let min, nil): suffix = "{\(min),}"
            case (let min, let max?) where min == max: suffix = "{\(min)}"
            case (let min, let max?): suffix = "{\(min),\(max)}"
            }
            let text = item.format(.repeated) + suffix
            return context == .repeated ? "(" + text + ")" : text
        }
    }

    private static func formatLiteral(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: output += "\\\""
            case 0x5C: output += "\\\\"
            case 0x0A: output += "\\n"
            case 0x0D: output += "\\r"
            case 0x09: output += "\\t"
            case 0x00...0x1F, 0x7F: output += hexEscape(scalar.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    private static func formatClass(_ set: UnicodeScalarSet) -> String {
        let inverted = set.inverted
        let negate = !inverted.isEmpty && inverted.ranges.count < set.ranges.count
        var output = negate ? "[^" : "["
        for range in (negate ? inverted : set).ranges {
            output += classCharacter(range.lowerBound)
            if range.upperBound == range.lowerBound + 1 {
                output += classCharacter(range.upperBound)
            } else if range.upperBound != range.lowerBound {
                output += "-" + classCharacter(range.upperBound)
            }
        }
        return output + "]"
    }

    /// Letters, digits and punctuation that means nothing inside a class go as they are;
    /// everything else as a hex escape, which llama.cpp reads the same in every position.
    private static func classCharacter(_ scalar: UInt32) -> String {
        let plain = " !#$%&'()*+,./:;<=>?@_`{|}~"
        if let unicodeScalar = Unicode.Scalar(scalar), unicodeScalar.isASCII {
            let character = Character(unicodeScalar)
            if character.isLetter || character.isNumber || plain.unicodeScalars.contains(unicodeScalar) {
                return String(character)
            }
        }
        return hexEscape(scalar)
    }

    private static func hexEscape(_ scalar: UInt32) -> String {
        let hex = String(scalar, radix: 16, uppercase: true)
        let (prefix, width) = scalar <= 0xFF ? ("\\x", 2) : scalar <= 0xFFFF ? ("\\u", 4) : ("\\U", 8)
        return prefix + String(repeating: "0", count: width - hex.count) + hex
    }
}
