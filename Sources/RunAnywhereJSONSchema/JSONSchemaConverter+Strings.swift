import RunAnywhereGBNF
import RunAnywhereJSON

/// Strings: lengths, formats and patterns, the last translated from `ECMARegex` to GBNF.
///
/// The grammar writes the JSON text of a string, not the string: every character a pattern
/// or format allows is written the way JSON spells it (`"` as `\"`, a newline as `\n`), so
/// the output always parses, and lengths count decoded characters (Unicode scalars, as
/// JSON Schema does).
extension JSONSchemaConverter {
    mutating func visitString(
        _ schema: JSONObject,
        at pointer: String,
        name: String
    ) throws(JSONSchemaError) -> GBNFExpression? {
        let minLength = Int(schema["minLength"]?.integerValue ?? 0)
        let maxLength = schema["maxLength"]?.integerValue.map { Int($0) }
        let format = schema["format"]?.stringValue.flatMap(JSONStringFormat.init(rawValue:))
        let quote = GBNFExpression.literal("\"")
        let place = JSONSchemaChecker.describe(pointer)
        // Bounds merged from allOf parts can contradict each other.
        if let maxLength, minLength > maxLength { return nil }
        if let pattern = schema["pattern"]?.stringValue, let regex = try? ECMARegex(parsing: pattern) {
            if let pieces = Self.anchoredPieces(of: regex) {
                if let format {
                    try unsupported(
                        "format",
                        at: JSONSchemaDocument.child(pointer, "format"),
                        "the grammar follows the pattern and cannot also follow the format \(format.rawValue)"
                    )
                }
                guard
                    let content = try patternContent(
                        pieces,
                        minLength: minLength,
                        maxLength: maxLength,
                        at: pointer,
                        name: name
                    )
                else {
                    throw JSONSchemaChecker.invalid(
                        "At \(place), no string matches the pattern \(pattern) within minLength and maxLength"
                    )
                }
                return .concat([quote, content, quote])
            }
            try unsupported(
                "pattern",
                at: JSONSchemaDocument.child(pointer, "pattern"),
                "a grammar can only anchor with ^ and $ at the ends of the pattern or of its top-level alternatives"
            )
        }
        // A pattern that cannot be translated was reported by the checker; what else the
        // schema says still holds.
        if let format {
            switch format.grammar(minLength: minLength, maxLength: maxLength, rules: &rules) {
            case .exact(let content):
                return .concat([quote, content, quote])
            case .impossible(let lengths):
                throw JSONSchemaChecker.invalid(
                    "At \(place), a \(format.rawValue) has \(lengths) characters, which minLength/maxLength rule out"
                )
            case .lengthNotEnforced(let content, let minimum, let maximum):
                for (keyword, leftOut) in [("minLength", minimum), ("maxLength", maximum)] where leftOut {
                    try unsupported(
                        keyword,
                        at: JSONSchemaDocument.child(pointer, keyword),
                        "the grammar for the format \(format.rawValue) cannot also count characters"
                    )
                }
                return .concat([quote, content, quote])
            }
        }
        if minLength == 0, maxLength == nil { return primitive("string") }
        let characters = repeated(
            primitive("char"),
            min: minLength,
            max: maxLength,
            name: Self.childName(name, "chars")
        )
        return .concat([quote, characters, quote])
    }

    /// A top-level alternative of a pattern, its anchors taken off.
    struct PatternPiece {
        var node: RegexNode
        var anchoredAtStart: Bool
        var anchoredAtEnd: Bool
    }

    /// The pattern's top-level alternatives; `nil` when an anchor is anywhere but at the
    /// start or end of one.
    static func anchoredPieces(of regex: ECMARegex) -> [PatternPiece]? {
        let alternatives: [RegexNode]
        if case .alternation(let nodes) = regex.root {
            alternatives = nodes
        } else {
            alternatives = [regex.root]
        }
        var pieces: [PatternPiece] = []
        for alternative in alternatives {
            var terms = alternative.terms
            let start = terms.first == .start
            if start { terms.removeFirst() }
            let end = terms.last == .end
            if end { terms.removeLast() }
            if terms.contains(where: \.containsAnchor) { return nil }
            pieces.append(PatternPiece(node: .sequence(terms), anchoredAtStart: start, anchoredAtEnd: end))
        }
        return pieces
    }

    /// The JSON string contents the pattern allows, within the length bounds where the
    /// grammar can count them: when the pattern has a single open-ended repetition of
    /// fixed-width items, its count is narrowed; otherwise the bounds go unenforced.
    private mutating func patternContent(
        _ pieces: [PatternPiece],
        minLength: Int,
        maxLength: Int?,
        at pointer: String,
        name: String
    ) throws(JSONSchemaError) -> GBNFExpression? {
        let bounded = minLength > 0 || maxLength != nil
        let anyCharacters = repeated(primitive("char"), min: 0, max: nil, name: name)
        var alternatives: [GBNFExpression] = []
        var lengthLeftOut = false
        for piece in pieces {
            var node = piece.node
            if bounded {
                var range = node.lengthRange
                if !piece.anchoredAtStart || !piece.anchoredAtEnd { range.max = nil }
                if let high = range.max, high < minLength { continue }
                if let maxLength, range.min > maxLength { continue }
                let fits =
                    range.min >= minLength
                    && (maxLength.map { limit in range.max.map { $0 <= limit } ?? false } ?? true)
                if !fits {
                    let narrowing =
                        piece.anchoredAtStart && piece.anchoredAtEnd
                        ? Self.narrow(node, minLength: minLength, maxLength: maxLength) : .otherShape
                    switch narrowing {
                    case .narrowed(let narrowed): node = narrowed
                    case .impossible: continue
                    case .otherShape: lengthLeftOut = true
                    }
                }
            }
            guard let body = regexGrammar(node, name: Self.childName(name, "pattern")) else { continue }
            var parts: [GBNFExpression] = []
            if !piece.anchoredAtStart { parts.append(anyCharacters) }
            parts.append(body)
            if !piece.anchoredAtEnd { parts.append(anyCharacters) }
            alternatives.append(.concat(parts))
        }
        if lengthLeftOut {
            for keyword in ["minLength", "maxLength"] where keyword == "minLength" ? minLength > 0 : maxLength != nil {
                try unsupported(
                    keyword,
                    at: JSONSchemaDocument.child(pointer, keyword),
                    "the grammar cannot count the characters of this pattern"
                )
            }
        }
        return alternatives.isEmpty ? nil : .anyOf(alternatives)
    }

    /// A pattern narrowed to a length range.
    enum Narrowing: Equatable {
        /// The pattern with its count narrowed.
        case narrowed(RegexNode)
        /// No count fits.
        case impossible
        /// The pattern has no single variable-length repetition of fixed-width items.
        case otherShape
    }

    /// The node with its one variable-length term, a repetition of fixed-width items,
    /// narrowed to the lengths in range.
    static func narrow(_ node: RegexNode, minLength: Int, maxLength: Int?) -> Narrowing {
        var terms = node.terms
        var fixed = 0
        var variable: Int?
        for (index, term) in terms.enumerated() {
            let range = term.lengthRange
            if range.max == range.min {
                fixed += range.min
            } else {
                if variable != nil { return .otherShape }
                variable = index
            }
        }
        guard let variable, case .repetition(let item, let count, let limit) = terms[variable] else {
            return .otherShape
        }
        let width = item.lengthRange
        guard width.max == width.min, width.min > 0 else { return .otherShape }
        let step = width.min
        // Rounded up without adding first, which could overflow near Int.max.
        let needed = max(0, minLength - fixed)
        let lowest = max(count, needed / step + (needed % step == 0 ? 0 : 1))
        var highest = limit ?? Int.max
        if let maxLength {
            guard maxLength >= fixed else { return .impossible }
            highest = min(highest, (maxLength - fixed) / step)
        }
        guard lowest <= highest else { return .impossible }
        terms[variable] = .repetition(item, min: lowest, max: highest == Int.max ? nil : highest)
        return .narrowed(.sequence(terms))
    }

    /// The GBNF for the JSON spelling of the strings `node` matches; `nil` when it matches
    /// none (an empty class).
    private mutating func regexGrammar(_ node: RegexNode, name: String) -> GBNFExpression? {
        switch node {
        case .characters(let set):
            // A class with escapes is a rule of its own, shared by every use (`.` `.` `.`).
            return GBNFExpression.jsonStringCharacter(in: set).map {
                rules.inlineOrAdd(Self.childName(name, "char"), $0)
            }
        case .sequence(let terms):
            var parts: [GBNFExpression] = []
            for term in terms {
                guard let part = regexGrammar(term, name: name) else { return nil }
                parts.append(part)
            }
            return .concat(parts)
        case .alternation(let alternatives):
            var parts: [GBNFExpression] = []
            for alternative in alternatives {
                if let part = regexGrammar(alternative, name: name) { parts.append(part) }
            }
            return parts.isEmpty ? nil : .anyOf(parts)
        case .repetition(let item, let min, let max):
            guard let part = regexGrammar(item, name: name) else { return min == 0 ? .empty : nil }
            return repeated(part, min: min, max: max, name: name)
        case .start, .end:
            return .empty
        }
    }
}
