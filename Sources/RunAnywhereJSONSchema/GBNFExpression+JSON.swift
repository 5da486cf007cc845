import RunAnywhereGBNF
import RunAnywhereJSON

/// The parts of JSON texts, as grammar expressions.
extension GBNFExpression {
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
}
