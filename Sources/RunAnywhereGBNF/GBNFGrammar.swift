/// A grammar in GBNF, llama.cpp's grammar format, parsed into its rules.
///
/// The parser follows llama.cpp's (`llama-grammar.cpp`) rule for rule, so that a grammar
/// the deterministic backend takes is one llama.cpp takes: the same syntax and escapes,
/// newlines only inside parentheses and after `|`, a later definition of a rule replacing
/// an earlier one, its limits on repetition (a count above 2,000 and repetitions that
/// would make more than 2,000 rules are errors; a maximum above 2,000 means no maximum),
/// and its checks: every referenced rule defined, the root defined, no left recursion
/// (including llama.cpp's view of `x*` where `x` has an empty alternative).
/// It differs where llama.cpp cannot be followed or would break:
/// - token matches (`<think>`, `<[42]>`, `!<…>`) need a model's vocabulary and are refused;
/// - `{m,n}` with `n < m` is refused (llama.cpp tries to build about 2⁶⁴ rules);
/// - left recursion is also found where a rule can be empty only by way of other rules,
///   which llama.cpp's check misses (its sampler then grows without end and aborts the
///   process), even in rules the root never reaches;
/// - groups nest at most ``maximumNesting`` deep, so no input exhausts the stack;
/// - a grammar of no rules is an error (llama.cpp's sampler takes an empty one as none).
///
/// Parsed, a literal with a code point no text can hold (a surrogate, one past U+10FFFF,
/// NUL) matches nothing, `.` is the class of every code point, and `[]` is the empty text.
///
/// Every error is a ``GBNFError``; all but a missing root end with the line and column of
/// the problem (both from 1, columns counting Unicode scalars).
package struct GBNFGrammar: Sendable, Equatable {
    /// The deepest nesting of parentheses (and stacked repetitions) the parser accepts.
    package static let maximumNesting = 100

    /// The rules by name.
    package let rules: [String: GBNFExpression]
    /// The names of the rules in the order of their first definition.
    package let ruleNames: [String]
    /// The rule the whole text must match.
    package let root: String

    /// Parses `text` and checks it as llama.cpp does before sampling.
    ///
    /// - Throws: `GBNFError` naming the problem and where it is.
    package init(parsing text: String, root: String = "root") throws(GBNFError) {
        var parser = GBNFParser(text)
        try parser.parseGrammar()
        rules = parser.rules
        ruleNames = parser.ruleNames
        self.root = root
        for reference in parser.references where rules[reference.name] == nil {
            throw parser.error("Undefined rule '\(reference.name)'", at: reference.offset)
        }
        guard rules[root] != nil else {
            throw GBNFError("The grammar has no rule '\(root)' (its rules: \(ruleNames.joined(separator: ", ")))")
        }
        if let name = GBNFAnalysis.leftRecursiveRule(rules, order: ruleNames, strictRepetitions: false) {
            throw parser.error("Left recursion in rule '\(name)'", at: parser.definitions[name] ?? 0)
        }
        for repetition in parser.emptyRepetitions where parser.hasEmptyAlternative[repetition.name] == true {
            throw parser.error(
                "Left recursion in a repetition of '\(repetition.name)', which has an empty alternative",
                at: repetition.offset
            )
        }
    }
}

/// llama.cpp's recursive-descent parser over Unicode scalars, with positions for errors.
private struct GBNFParser {
    let text: [Unicode.Scalar]
    var offset = 0
    var rules: [String: GBNFExpression] = [:]
    var ruleNames: [String] = []
    var definitions: [String: Int] = [:]
    var references: [(name: String, offset: Int)] = []
    /// Rules with an empty alternative, as llama.cpp sees them (`a ::= | "x"`, not `a ::= "x"?`).
    var hasEmptyAlternative: [String: Bool] = [:]
    /// Rules repeated without a maximum: left recursive to llama.cpp if they have an empty alternative.
    var emptyRepetitions: [(name: String, offset: Int)] = []
    private var referenced: Set<String> = []
    // llama.cpp's symbol table, kept only to count rules for its repetition limit.
    private var symbols: Set<String> = []
    private var symbolCount = 0

    /// llama.cpp's MAX_REPETITION_THRESHOLD.
    static let repetitionLimit = 2_000

    init(_ text: String) {
        self.text = Array(text.unicodeScalars)
    }

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        offset + ahead < text.count ? text[offset + ahead] : nil
    }

    private static func isWordCharacter(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || scalar == "-"
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar {
        case "0"..."9": scalar.value - 0x30
        case "a"..."f": scalar.value - 0x61 + 10
        case "A"..."F": scalar.value - 0x41 + 10
        default: nil
        }
    }

    private static func isDigit(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        return ("0"..."9").contains(scalar)
    }

    // MARK: Errors

    func error(_ what: String, at position: Int) -> GBNFError {
        var line = 1
        var column = 1
        var index = 0
        while index < min(position, text.count) {
            let scalar = text[index]
            if scalar == "\n" || (scalar == "\r" && (index + 1 >= text.count || text[index + 1] != "\n")) {
                line += 1
                column = 1
            } else if scalar != "\r" {
                column += 1
            }
            index += 1
        }
        return GBNFError("\(what) at line \(line) column \(column)")
    }

    private func found() -> String {
        guard let scalar = peek() else { return "the end of the grammar" }
        if scalar.value >= 0x20, scalar.value < 0x7F { return "'\(Character(scalar))'" }
        return "U+" + String(scalar.value, radix: 16, uppercase: true)
    }

    // MARK: Grammar and rules

    mutating func parseGrammar() throws(GBNFError) {
        // llama.cpp reads the grammar as a C string, so a NUL would silently end it.
        if let nul = text.firstIndex(of: "\0") { throw error("NUL character", at: nul) }
        skipSpace(newlines: true)
        while offset < text.count {
            try parseRule()
        }
        if rules.isEmpty { throw error("Expected a rule, found the end of the grammar", at: offset) }
    }

    private mutating func parseRule() throws(GBNFError) {
        let start = offset
        let name = try parseName()
        skipSpace(newlines: false)
        addSymbol(name)
        guard peek() == ":", peek(1) == ":", peek(2) == "=" else {
            throw error("Expected '::=' after the rule name '\(name)', found \(found())", at: offset)
        }
        offset += 3
        skipSpace(newlines: true)
        let (body, hasEmptyAlternative) = try parseAlternates(rule: name, nested: false, depth: 0)
        if peek() == "\r" {
            offset += peek(1) == "\n" ? 2 : 1
        } else if peek() == "\n" {
            offset += 1
        } else if offset < text.count {
            throw error("Expected a newline or the end of the grammar, found \(found())", at: offset)
        }
        if rules.updateValue(body.expression, forKey: name) == nil { ruleNames.append(name) }
        definitions[name] = start
        self.hasEmptyAlternative[name] = hasEmptyAlternative
        skipSpace(newlines: true)
    }

    private mutating func parseName() throws(GBNFError) -> String {
        var name = ""
        while Self.isWordCharacter(peek()) {
            name.unicodeScalars.append(text[offset])
            offset += 1
        }
        if name.isEmpty { throw error("Expected a rule name, found \(found())", at: offset) }
        return name
    }

    /// Spaces, tabs and comments; newlines too where the grammar allows them.
    private mutating func skipSpace(newlines: Bool) {
        while let scalar = peek() {
            if scalar == " " || scalar == "\t" || (newlines && (scalar == "\r" || scalar == "\n")) {
                offset += 1
            } else if scalar == "#" {
                while let next = peek(), next != "\r", next != "\n" {
                    offset += 1
                }
            } else {
                return
            }
        }
    }

    private mutating func addSymbol(_ name: String) {
        if symbols.insert(name).inserted { symbolCount += 1 }
    }

    // MARK: Expressions

    /// What llama.cpp's checks need to know of a parsed item, beyond its expression.
    private struct Parsed {
        var expression: GBNFExpression
        var height = 1
        /// Whether llama.cpp writes any element for it: `""`, `[]` and `x{0}` write none,
        /// and only an item with elements can be repeated.
        var hasElements = true
        /// Whether every element llama.cpp writes for it refers to a rule with an empty
        /// alternative, which llama.cpp's left-recursion check skips over.
        var skippable = Skippable.no
        /// llama.cpp's n_prev_rules: the rules the item stands for, for its repetition limit.
        var rules = 1
    }

    private enum Skippable {
        case no
        case yes
        /// As the rule of that name, once every rule is known.
        case rule(String)
    }

    /// The alternatives, and whether one of them is empty as llama.cpp sees it.
    private mutating func parseAlternates(
        rule: String,
        nested: Bool,
        depth: Int
    ) throws(GBNFError) -> (parsed: Parsed, hasEmptyAlternative: Bool) {
        var alternatives = [try parseSequence(rule: rule, nested: nested, depth: depth)]
        while peek() == "|" {
            offset += 1
            skipSpace(newlines: true)
            alternatives.append(try parseSequence(rule: rule, nested: nested, depth: depth))
        }
        let hasEmptyAlternative = alternatives.contains { !$0.hasElements }
        if alternatives.count == 1 { return (alternatives[0], hasEmptyAlternative) }
        let choice = Parsed(
            expression: .choice(alternatives.map(\.expression)),
            height: 1 + alternatives.map(\.height).max()!
        )
        return (choice, hasEmptyAlternative)
    }

    private mutating func parseSequence(rule: String, nested: Bool, depth: Int) throws(GBNFError) -> Parsed {
        var items: [Parsed] = []
        loop: while let scalar = peek() {
            let start = offset
            switch scalar {
            case "\"":
                offset += 1
                var scalars: [UInt32] = []
                while peek() != "\"" {
                    guard offset < text.count else { throw error("Unclosed string literal", at: start) }
                    scalars.append(try parseCharacter(openedAt: start, what: "string literal"))
                }
                offset += 1
                skipSpace(newlines: nested)
                items.append(Parsed(expression: Self.literal(scalars), hasElements: !scalars.isEmpty))
            case "[":
                let characters = try parseClass()
                skipSpace(newlines: nested)
                items.append(Parsed(expression: characters, hasElements: characters != .empty))
            case "<", "!":
                throw error("Token matches like '<…>' need a model's vocabulary and are not supported", at: start)
            case "(":
                guard depth < GBNFGrammar.maximumNesting else {
                    throw error("Groups nested more than \(GBNFGrammar.maximumNesting) deep", at: start)
                }
                offset += 1
                skipSpace(newlines: true)
                let symbolsBefore = symbolCount
                symbolCount += 1
                var (group, hasEmptyAlternative) = try parseAlternates(rule: rule, nested: true, depth: depth + 1)
                guard peek() == ")" else {
                    if offset >= text.count { throw error("Unclosed parenthesis", at: start) }
                    throw error("Expected ')', found \(found())", at: offset)
                }
                offset += 1
                skipSpace(newlines: nested)
                // llama.cpp makes the group a rule of its own and writes a reference to it.
                group.hasElements = true
                group.skippable = hasEmptyAlternative ? .yes : .no
                group.rules = max(1, symbolCount - symbolsBefore)
                items.append(group)
            case ".":
                offset += 1
                skipSpace(newlines: nested)
                items.append(Parsed(expression: .characters(.all)))
            case "*", "+", "?":
                offset += 1
                skipSpace(newlines: nested)
                let bounds: (Int, Int?) = scalar == "*" ? (0, nil) : scalar == "+" ? (1, nil) : (0, 1)
                try repeatLast(&items, bounds, at: start)
            case "{":
                let bounds = try parseBounds(nested: nested)
                try repeatLast(&items, bounds, at: start)
            default:
                guard Self.isWordCharacter(scalar) else { break loop }
                let name = try parseName()
                addSymbol(name)
                if referenced.insert(name).inserted { references.append((name, start)) }
                skipSpace(newlines: nested)
                items.append(Parsed(expression: .rule(name), skippable: .rule(name)))
            }
        }
        if items.count == 1 { return items[0] }
        return Parsed(
            expression: .sequence(items.map(\.expression)),
            height: 1 + (items.map(\.height).max() ?? 0),
            hasElements: items.contains { $0.hasElements }
        )
    }

    private mutating func parseClass() throws(GBNFError) -> GBNFExpression {
        let start = offset
        offset += 1
        let negated = peek() == "^"
        if negated { offset += 1 }
        var sawCharacter = false
        var ranges: [ClosedRange<UInt32>] = []
        while peek() != "]" {
            guard offset < text.count else { throw error("Unclosed character class", at: start) }
            let lower = try parseCharacter(openedAt: start, what: "character class")
            if peek() == "-", peek(1) != "]" {
                guard offset + 1 < text.count else { throw error("Unclosed character class", at: start) }
                offset += 1
                let upper = try parseCharacter(openedAt: start, what: "character class")
                // llama.cpp keeps a range whose ends are swapped; it matches nothing.
                if lower <= upper { ranges.append(lower...upper) }
            } else {
                ranges.append(lower...lower)
            }
            sawCharacter = true
        }
        offset += 1
        // llama.cpp writes no element for an empty class: it matches the empty text.
        guard sawCharacter else { return .empty }
        let set = UnicodeScalarSet(ranges)
        return .characters(negated ? set.inverted : set)
    }

    /// A literal of these code points; one that no text can hold makes it match nothing.
    private static func literal(_ values: [UInt32]) -> GBNFExpression {
        if values.isEmpty { return .empty }
        var text = ""
        for value in values {
            guard value != 0, let scalar = Unicode.Scalar(value) else { return .characters(UnicodeScalarSet()) }
            text.unicodeScalars.append(scalar)
        }
        return .literal(text)
    }

    /// One character of a literal or class, escapes decoded; `openedAt` is where the
    /// literal or class began, for the error when the grammar ends inside it.
    private mutating func parseCharacter(openedAt: Int, what: String) throws(GBNFError) -> UInt32 {
        let start = offset
        guard text[offset] == "\\" else {
            offset += 1
            return text[start].value
        }
        guard let escape = peek(1) else { throw error("Unclosed \(what)", at: openedAt) }
        offset += 2
        switch escape {
        case "x": return try parseHex(digits: 2, escapeAt: start)
        case "u": return try parseHex(digits: 4, escapeAt: start)
        case "U": return try parseHex(digits: 8, escapeAt: start)
        case "t": return 0x09
        case "r": return 0x0D
        case "n": return 0x0A
        case "\\", "\"", "[", "]", "-": return escape.value
        default:
            offset = start
            throw error("Unknown escape '\\\(Character(escape))'", at: start)
        }
    }

    private mutating func parseHex(digits: Int, escapeAt start: Int) throws(GBNFError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let digit = peek().flatMap(Self.hexValue) else {
                throw error("Expected \(digits) hex digits in the escape", at: start)
            }
            value = value << 4 | digit
            offset += 1
        }
        return value
    }

    /// `{m}`, `{m,}` or `{m,n}`, with llama.cpp's limits.
    private mutating func parseBounds(nested: Bool) throws(GBNFError) -> (Int, Int?) {
        let start = offset
        offset += 1
        skipSpace(newlines: nested)
        let min = try parseInteger()
        skipSpace(newlines: nested)
        var max: Int? = min
        if peek() == "}" {
            offset += 1
        } else if peek() == "," {
            offset += 1
            skipSpace(newlines: nested)
            max = Self.isDigit(peek()) ? try parseInteger() : nil
            skipSpace(newlines: nested)
            guard peek() == "}" else { throw error("Expected '}', found \(found())", at: offset) }
            offset += 1
        } else {
            throw error("Expected ',' or '}', found \(found())", at: offset)
        }
        skipSpace(newlines: nested)
        if min > Self.repetitionLimit {
            throw error("Repetition count above \(Self.repetitionLimit)", at: start)
        }
        if let bound = max, bound > Self.repetitionLimit { max = nil }
        if let bound = max, bound < min {
            throw error("Repetition maximum \(bound) below its minimum \(min)", at: start)
        }
        return (min, max)
    }

    private mutating func parseInteger() throws(GBNFError) -> Int {
        guard Self.isDigit(peek()) else { throw error("Expected an integer, found \(found())", at: offset) }
        let start = offset
        var value = 0
        while let scalar = peek(), Self.isDigit(scalar) {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow, shifted <= Int(UInt32.max) else { throw error("Integer too large", at: start) }
            value = shifted + Int(scalar.value - 0x30)
            offset += 1
        }
        return value
    }

    private mutating func repeatLast(
        _ items: inout [Parsed],
        _ bounds: (min: Int, max: Int?),
        at position: Int
    ) throws(GBNFError) {
        guard var item = items.popLast(), item.hasElements else {
            throw error("Expected an item before the repetition", at: position)
        }
        let (min, max) = bounds
        // llama.cpp rewrites a repetition into rules, one per optional copy; it caps how many.
        let copies = max.map { $0 > 0 ? $0 : Swift.max(min, 1) } ?? Swift.max(min, 1)
        if item.rules * copies > Self.repetitionLimit {
            throw error("Repetition would make more than \(Self.repetitionLimit) rules", at: position)
        }
        // Without a maximum, llama.cpp writes `x' ::= x x' |`: left recursive when it can skip all of x.
        if max == nil {
            switch item.skippable {
            case .no: break
            case .yes: throw error("Left recursion in a repetition of something that can be empty", at: position)
            case .rule(let name): emptyRepetitions.append((name, position))
            }
        }
        symbolCount += max.map { $0 - min } ?? 1
        item.expression = .repetition(item.expression, min: min, max: max)
        item.height += 1
        if item.height > GBNFGrammar.maximumNesting * 2 {
            throw error("Expression nested too deeply", at: position)
        }
        item.rules *= copies
        item.hasElements = min > 0 || max != min
        // With no required copy, llama.cpp writes a reference to a rule with an empty alternative.
        if min == 0 { item.skippable = .yes }
        items.append(item)
    }
}
