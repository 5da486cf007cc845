/// A GBNF expression kept as a tree rather than text: what the schema compiler builds and
/// simplifies, what ``GBNFGrammar`` parses text into, and what ``GBNFAnalysis`` checks (can
/// every rule finish, is any rule left-recursive) before llama.cpp sees it: llama.cpp rejects
/// left recursion only when sampling starts, and a rule that can never finish would let the
/// model write until it runs out of tokens.
package indirect enum GBNFExpression: Hashable, Sendable {
    /// Exactly this text.
    case literal(String)
    /// One scalar of the set; the empty set matches nothing.
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
    package static let empty = GBNFExpression.sequence([])

    /// One digit, `[0-9]`.
    package static let digit = GBNFExpression.characters(.digits)

    /// The elements in order: nested sequences flatten and adjacent literals merge.
    package static func concat(_ elements: [GBNFExpression]) -> GBNFExpression {
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
    package static func anyOf(_ alternatives: [GBNFExpression]) -> GBNFExpression {
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
    package static func repeating(_ item: GBNFExpression, min: Int, max: Int?) -> GBNFExpression {
        if let max, max == 0 { return .empty }
        if min == 1, max == 1 { return item }
        if item == .empty { return .empty }
        return .repetition(item, min: min, max: max)
    }

    /// The expression with every rule it refers to renamed by `rename`.
    package func renamingRules(_ rename: (String) -> String) -> GBNFExpression {
        switch self {
        case .literal, .characters: self
        case .rule(let name): .rule(rename(name))
        case .sequence(let elements): .sequence(elements.map { $0.renamingRules(rename) })
        case .choice(let alternatives): .choice(alternatives.map { $0.renamingRules(rename) })
        case .repetition(let item, let min, let max): .repetition(item.renamingRules(rename), min: min, max: max)
        }
    }

    /// The expression or nothing.
    package static func optional(_ item: GBNFExpression) -> GBNFExpression {
        repeating(item, min: 0, max: 1)
    }

    /// One hexadecimal digit, either case.
    package static let hexDigit = GBNFExpression.characters(UnicodeScalarSet([0x30...0x39, 0x41...0x46, 0x61...0x66]))

    // MARK: Text

    private enum Context {
        case top
        case sequenceElement
        case repeated
    }

    /// The expression as GBNF text, as the body of a rule.
    package var gbnf: String { format(.top) }

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
        // `[]` is the empty text to llama.cpp: a class outside of which every code point lies
        // is how GBNF says "nothing".
        if set.isEmpty { return "[^\\x00-\\U0010FFFF]" }
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
