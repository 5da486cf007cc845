import RunAnywhereGBNF
import RunAnywhereJSON

/// Writes the GBNF grammar for a JSON Schema: the engine behind `JSONSchemaGrammar`.
///
/// A schema is visited from the root; each visit returns the expression for the values the
/// schema allows, or `nil` when it allows none (so an impossible optional property just
/// disappears). `$ref`s become named rules, which is how recursion works; `allOf` is merged
/// into one schema, and `anyOf`/`oneOf` beside other keywords is distributed over them.
/// Once the root is written, rules that can never finish are removed and what is left is
/// checked for left recursion, which llama.cpp would refuse.
package struct JSONSchemaConverter {
    static let maximumDepth = 128
    /// How deep merged combinations may nest without passing a named rule.
    static let maximumInlineDepth = 32
    /// How many merged combinations one schema may produce in all.
    static let maximumCombinations = 4096
    /// How many alternatives one `anyOf`/`oneOf` distribution may produce.
    static let maximumAlternatives = 64
    /// Schema nodes visited, parts merged and enum values written, in all. Shared schemas
    /// reached by many paths (`allOf` of two `$ref`s to a schema that does the same, forty levels
    /// down, is 2^40 parts from 2 KB of text) would otherwise grow the work and the grammar
    /// without bound; real schemas, however large, stay in the thousands.
    static let maximumWork = 200_000
    /// Repetition counts llama.cpp expands directly (it refuses more than 2000, and turns a
    /// larger maximum into no maximum at all); larger ones are built from blocks.
    static let repetitionBlock = 1000

    static let primitiveNames: [String] = [
        "root", "space", "value", "object", "array", "string", "char", "number", "integer", "integral-part", "boolean",
        "null", "key-char",
    ]

    let document: JSONSchemaDocument
    let options: JSONSchemaCompilerOptions
    /// The grammar's rules, as built.
    package internal(set) var rules = GBNFRuleSet()
    /// The keywords left out of the grammar (with best effort).
    package internal(set) var unenforced: [JSONSchemaKeywordLocation] = []
    private var referenceRules: [String: String] = [:]
    private var rulePointers: [String: String] = [:]
    private var depth = 0
    private var inlineDepth = 0
    private var combinations = 0
    private var work = 0

    /// A compiler for `schema`.
    package init(schema: JSONSchema, options: JSONSchemaCompilerOptions) {
        document = JSONSchemaDocument(root: schema.value)
        self.options = options
        rules.reserve(Self.primitiveNames + JSONStringFormat.ruleNames)
    }

    /// The grammar's text, root rule `root`.
    package mutating func convert() throws(JSONSchemaError) -> String {
        var checker = JSONSchemaChecker(document: document, options: options)
        try checker.check()
        unenforced = checker.unenforced
        referenceRules[""] = "root"
        rulePointers["root"] = ""
        guard let body = try visit(document.root, at: "", name: "root") else {
            throw JSONSchemaChecker.invalid("No JSON value satisfies the schema")
        }
        rules.define("root", body)
        try finish()
        return rules.gbnf(root: "root")
    }

    /// Removes rules that can never finish (an impossible recursion under an optional
    /// property), and refuses a grammar whose root never finishes or that recurses without
    /// writing anything.
    private mutating func finish() throws(JSONSchemaError) {
        let reachable = rules.reachableRules(from: "root")
        let unproductive = rules.unproductiveRules(among: reachable)
        if unproductive.contains("root") {
            let named = unproductive.count > 1 ? unproductive.subtracting(["root"]) : unproductive
            let places = named.compactMap { rulePointers[$0] }.sorted().map(JSONSchemaChecker.describe)
            throw JSONSchemaChecker.invalid(
                "The schema can never be completed: \(places.joined(separator: ", ")) always requires another "
                    + "instance of itself (a recursion without a base case, e.g. a required property, or an array "
                    + "with minItems > 0, that refers back to its own schema)"
            )
        }
        if !unproductive.isEmpty {
            for name in reachable.subtracting(unproductive).sorted() {
                if let body = rules.rules[name], let pruned = Self.prune(body, removing: unproductive) {
                    rules.define(name, pruned)
                }
            }
            // Rules left with nothing to write go too.
            let empty = Set(reachable.filter { $0 != "root" && rules.rules[$0] == .empty })
            for name in reachable.subtracting(unproductive).sorted() {
                if let body = rules.rules[name], let pruned = Self.prune(body, emptying: empty) {
                    rules.define(name, pruned)
                }
            }
        }
        let remaining = rules.reachableRules(from: "root")
        if let name = rules.leftRecursiveRule(among: remaining) {
            let place = JSONSchemaChecker.describe(rulePointers[name] ?? "")
            throw JSONSchemaChecker.invalid(
                "The schema at \(place) refers to itself before any value is written (a $ref cycle through anyOf, "
                    + "oneOf or allOf with nothing in between)"
            )
        }
    }

    /// The expression without the rules `removing` (`nil` when nothing is left), with the
    /// rules `emptying` replaced by the empty text.
    private static func prune(
        _ expression: GBNFExpression,
        removing: Set<String> = [],
        emptying: Set<String> = []
    ) -> GBNFExpression? {
        switch expression {
        case .literal, .characters:
            return expression
        case .rule(let name):
            if emptying.contains(name) { return .empty }
            return removing.contains(name) ? nil : expression
        case .sequence(let elements):
            var result: [GBNFExpression] = []
            for element in elements {
                guard let pruned = prune(element, removing: removing, emptying: emptying) else { return nil }
                result.append(pruned)
            }
            return .concat(result)
        case .choice(let alternatives):
            let result = alternatives.compactMap { prune($0, removing: removing, emptying: emptying) }
            return result.isEmpty ? nil : .anyOf(result)
        case .repetition(let item, let min, let max):
            guard let pruned = prune(item, removing: removing, emptying: emptying) else {
                return min == 0 ? .empty : nil
            }
            return .repeating(pruned, min: min, max: max)
        }
    }

    // MARK: Errors

    /// Counts `units` of work against ``maximumWork``.
    private mutating func spend(_ units: Int, at pointer: String) throws(JSONSchemaError) {
        work += units
        guard work > Self.maximumWork else { return }
        throw JSONSchemaError(
            .unsupportedSchema,
            "The schema expands into more than \(Self.maximumWork) parts by \(JSONSchemaChecker.describe(pointer)) "
                + "(schemas shared through $ref or allOf, combined again and again)",
            recovery: "Give shared parts one $ref each instead of combining them with allOf at every level"
        )
    }

    /// Records a keyword the grammar leaves out, or throws without best effort.
    mutating func unsupported(_ keyword: String, at pointer: String, _ reason: String) throws(JSONSchemaError) {
        try JSONSchemaChecker.unsupported(keyword, at: pointer, reason, options: options, into: &unenforced)
    }

    // MARK: Visiting

    /// The expression for the values `schema` allows; `nil` when it allows none.
    mutating func visit(
        _ schema: JSONValue,
        at pointer: String,
        name: String
    ) throws(JSONSchemaError) -> GBNFExpression? {
        try spend(1, at: pointer)
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw JSONSchemaError(
                .unsupportedSchema,
                "The schema is nested more than \(Self.maximumDepth) levels deep at \(pointer)"
            )
        }
        switch schema {
        case .bool(true):
            return primitive("value")
        case .bool(false):
            return nil
        case .object(let object):
            return try visitSchemaObject(strictNormalized(object), at: pointer, name: name)
        default:
            throw JSONSchemaChecker.invalid("The schema at \(JSONSchemaChecker.describe(pointer)) is not an object")
        }
    }

    /// A member's or element's schema: structure was written on the way, so merged
    /// combinations below it count afresh.
    mutating func visitChild(
        _ schema: JSONValue,
        at pointer: String,
        name: String
    ) throws(JSONSchemaError) -> GBNFExpression? {
        let savedInlineDepth = inlineDepth
        inlineDepth = 0
        defer { inlineDepth = savedInlineDepth }
        return try visit(schema, at: pointer, name: name)
    }

    /// The schema with `additionalProperties: false` where `strictObjects` closes it.
    private func strictNormalized(_ object: JSONObject) -> JSONObject {
        guard options.strictObjects, JSONSchemaDocument.strictObjectsClose(object) else { return object }
        var closed = object
        closed["additionalProperties"] = .bool(false)
        return closed
    }

    /// Whether the schema has keywords that constrain values, besides `ignoring`.
    private static func constrains(_ object: JSONObject, ignoring: Set<String>) -> Bool {
        object.keys.contains { JSONSchemaChecker.enforced.contains($0) && !ignoring.contains($0) }
    }

    private mutating func visitSchemaObject(
        _ object: JSONObject,
        at pointer: String,
        name: String
    ) throws(JSONSchemaError) -> GBNFExpression? {
        if let reference = object["$ref"]?.stringValue, !Self.constrains(object, ignoring: ["$ref"]) {
            return try referenceRule(reference, from: pointer)
        }
        let anyOf = object["anyOf"]?.arrayValue
        let oneOf = object["oneOf"]?.arrayValue
        if object["$ref"] == nil, object["allOf"] == nil, (anyOf == nil) != (oneOf == nil),
            let branches = anyOf ?? oneOf, !Self.constrains(object, ignoring: ["anyOf", "oneOf"])
        {
            // A plain union keeps its branches (and their $ref rules) as they are. oneOf is
            // written as anyOf: the grammar cannot exclude a value matching two branches.
            let keyword = anyOf != nil ? "anyOf" : "oneOf"
            var alternatives: [GBNFExpression] = []
            for (index, branch) in branches.enumerated() {
                let branchPointer = JSONSchemaDocument.child(pointer, keyword, String(index))
                if let alternative = try visit(branch, at: branchPointer, name: "\(name)-\(index)") {
                    alternatives.append(alternative)
                }
            }
            return alternatives.isEmpty ? nil : .anyOf(alternatives)
        }
        if object["$ref"] != nil || object["allOf"] != nil || anyOf != nil || oneOf != nil {
            return try visitCombination(object, at: pointer, name: name)
        }
        return try visitPlain(object, at: pointer, name: name)
    }

    /// The rule for the schema `reference` points to, written once however often it is used.
    private mutating func referenceRule(
        _ reference: String,
        from pointer: String
    ) throws(JSONSchemaError) -> GBNFExpression? {
        switch document.resolve(reference) {
        case .found(let target, let targetPointer):
            if let name = referenceRules[targetPointer] { return .rule(name) }
            let name = rules.declare(Self.ruleBase(for: targetPointer))
            referenceRules[targetPointer] = name
            rulePointers[name] = targetPointer
            let savedInlineDepth = inlineDepth
            inlineDepth = 0
            defer { inlineDepth = savedInlineDepth }
            guard let body = try visit(target, at: targetPointer, name: name) else {
                // Other uses may already name the rule; a rule that cannot finish is
                // removed with them at the end.
                rules.define(name, .rule(name))
                return nil
            }
            rules.define(name, body)
            return .rule(name)
        case .notFound:
            throw JSONSchemaChecker.invalid("The $ref \(reference) at \(pointer) refers to nothing in the schema")
        case .remote:
            // Reported by the checker; with best effort the value is unconstrained.
            return primitive("value")
        }
    }

    /// `node` for `#/$defs/node`, `properties-a` for `#/properties/a`.
    private static func ruleBase(for pointer: String) -> String {
        var tokens = pointer.split(separator: "/").map(String.init)
        if let first = tokens.first, first == "$defs" || first == "definitions", tokens.count > 1 {
            tokens.removeFirst()
        }
        return tokens.joined(separator: "-")
    }

    /// A schema with `allOf`, `$ref` beside other keywords, or `anyOf`/`oneOf` beside other
    /// keywords: its parts merged into one schema, with any unions distributed over it.
    private mutating func visitCombination(
        _ object: JSONObject,
        at pointer: String,
        name: String
    ) throws(JSONSchemaError) -> GBNFExpression? {
        combinations += 1
        inlineDepth += 1
        defer { inlineDepth -= 1 }
        guard inlineDepth <= Self.maximumInlineDepth, combinations <= Self.maximumCombinations else {
            throw JSONSchemaError(
                .unsupportedSchema,
                "The allOf/anyOf/oneOf/$ref combination at \(JSONSchemaChecker.describe(pointer)) expands without end "
                    + "or into too many alternatives"
            )
        }
        var parts: [JSONSchemaMerger.Part] = []
        var unions: [[(schema: JSONValue, pointer: String)]] = []
        guard try flatten(.object(object), at: pointer, references: [], into: &parts, unions: &unions) else {
            return nil
        }
        let merger = JSONSchemaMerger(parts)
        for conflict in merger.conflicts {
            try unsupported(conflict.keyword, at: conflict.pointer, "allOf combines two different values of it")
        }
        guard let merged = merger.merged else { return nil }
        guard let first = unions.first else {
            return try visitPlain(merged, at: pointer, name: name)
        }
        var count = 1
        for union in unions where count <= Self.maximumAlternatives { count *= max(1, union.count) }
        guard count <= Self.maximumAlternatives else {
            throw JSONSchemaError(
                .unsupportedSchema,
                "The anyOf/oneOf at \(JSONSchemaChecker.describe(pointer)) combine into more than "
                    + "\(Self.maximumAlternatives) alternatives"
            )
        }
        let plainUnion = unions.count == 1 && !Self.constrains(merged, ignoring: [])
        var alternatives: [GBNFExpression] = []
        for (index, branch) in first.enumerated() {
            let alternative: GBNFExpression?
            if plainUnion {
                alternative = try visit(branch.schema, at: branch.pointer, name: "\(name)-\(index)")
            } else {
                var all: [JSONValue] = [.object(merged), branch.schema]
                for union in unions.dropFirst() { all.append(.object(["anyOf": .array(union.map(\.schema))])) }
                alternative = try visitCombination(["allOf": .array(all)], at: branch.pointer, name: "\(name)-\(index)")
            }
            if let alternative { alternatives.append(alternative) }
        }
        return alternatives.isEmpty ? nil : .anyOf(alternatives)
    }

    /// Collects the parts of a conjunction: `$ref`s followed and `allOf`s opened, each
    /// `anyOf`/`oneOf` kept aside as a union. `false` when a part is `false`.
    private mutating func flatten(
        _ schema: JSONValue,
        at pointer: String,
        references: Set<String>,
        into parts: inout [JSONSchemaMerger.Part],
        unions: inout [[(schema: JSONValue, pointer: String)]]
    ) throws(JSONSchemaError) -> Bool {
        guard case .object(let object) = schema else { return schema != .bool(false) }
        guard references.count <= Self.maximumDepth else { return true }
        try spend(1 + object.count, at: pointer)
        var own = strictNormalized(object)
        if let reference = own["$ref"]?.stringValue {
            own["$ref"] = nil
            switch document.resolve(reference) {
            case .found(let target, let targetPointer):
                guard !references.contains(targetPointer) else {
                    throw JSONSchemaChecker.invalid(
                        "The schema at \(JSONSchemaChecker.describe(targetPointer)) is part of itself through allOf "
                            + "or $ref (a recursion without progress)"
                    )
                }
                var chain = references
                chain.insert(targetPointer)
                guard try flatten(target, at: targetPointer, references: chain, into: &parts, unions: &unions) else {
                    return false
                }
            case .notFound:
                throw JSONSchemaChecker.invalid("The $ref \(reference) at \(pointer) refers to nothing in the schema")
            case .remote:
                break
            }
        }
        if let all = own["allOf"]?.arrayValue {
            own["allOf"] = nil
            for (index, part) in all.enumerated() {
                let partPointer = JSONSchemaDocument.child(pointer, "allOf", String(index))
                guard try flatten(part, at: partPointer, references: references, into: &parts, unions: &unions) else {
                    return false
                }
            }
        }
        for keyword in ["anyOf", "oneOf"] {
            if let branches = own[keyword]?.arrayValue {
                own[keyword] = nil
                unions.append(
                    branches.enumerated().map { ($1, JSONSchemaDocument.child(pointer, keyword, String($0))) }
                )
            }
        }
        parts.append(JSONSchemaMerger.Part(schema: own, pointer: pointer))
        return true
    }

    // MARK: Plain schemas

    /// A schema without `$ref`, `allOf`, `anyOf` or `oneOf`.
    private mutating func visitPlain(
        _ object: JSONObject,
        at pointer: String,
        name: String
    ) throws(JSONSchemaError) -> GBNFExpression? {
        let schema = JSONSchemaMerger.normalized(object)
        if let values = schema["enum"]?.arrayValue {
            try spend(values.count, at: pointer)
            return enumeration(values, constrainedBy: schema, at: pointer)
        }
        let types = Self.types(of: schema)
        if types.isEmpty { return primitive("value") }
        var alternatives: [GBNFExpression] = []
        for type in ["object", "array", "string", "number", "integer", "boolean", "null"] where types.contains(type) {
            if type == "integer", types.contains("number") { continue }
            let branchName = types.count > 1 ? "\(name)-\(type)" : name
            let alternative: GBNFExpression?
            switch type {
            case "object": alternative = try visitObject(schema, at: pointer, name: branchName)
            case "array": alternative = try visitArray(schema, at: pointer, name: branchName)
            case "string": alternative = try visitString(schema, at: pointer, name: branchName)
            case "number": alternative = try visitNumber(schema, at: pointer, integer: false)
            case "integer": alternative = try visitNumber(schema, at: pointer, integer: true)
            case "boolean": alternative = primitive("boolean")
            default: alternative = primitive("null")
            }
            if let alternative { alternatives.append(alternative) }
        }
        return alternatives.isEmpty ? nil : .anyOf(alternatives)
    }

    /// The `type`s, or, without `type`, the types the keywords are about (a schema with
    /// `properties` writes objects, one with `pattern` strings): JSON Schema would allow any
    /// other type too, but a model asked for properties should write an object. Empty when
    /// nothing narrows the type.
    private static func types(of schema: JSONObject) -> Set<String> {
        if let type = schema["type"] {
            return Set(type.stringValue.map { [$0] } ?? type.arrayValue?.compactMap(\.stringValue) ?? [])
        }
        var types: Set<String> = []
        let objectKeywords = ["properties", "required", "minProperties", "maxProperties"]
        if objectKeywords.contains(where: { schema[$0] != nil })
            || (schema["additionalProperties"] != nil && schema["additionalProperties"] != .bool(true))
        {
            types.insert("object")
        }
        if ["items", "prefixItems", "additionalItems", "minItems", "maxItems"].contains(where: { schema[$0] != nil }) {
            types.insert("array")
        }
        let knownFormat = schema["format"]?.stringValue.flatMap(JSONStringFormat.init(rawValue:)) != nil
        if knownFormat || ["minLength", "maxLength", "pattern"].contains(where: { schema[$0] != nil }) {
            types.insert("string")
        }
        if ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"].contains(where: { schema[$0] != nil }) {
            types.insert("number")
        }
        return types
    }

    /// The values of `enum` (or `const`) that also satisfy the schema's other keywords, each
    /// written exactly.
    private func enumeration(
        _ values: [JSONValue],
        constrainedBy schema: JSONObject,
        at pointer: String
    ) -> GBNFExpression? {
        var rest = schema
        rest["enum"] = nil
        var validator = JSONSchemaValidator(document: document, strictObjects: options.strictObjects)
        validator.budget(for: .array(values))
        var kept: [JSONValue] = []
        var seen: Set<String> = []
        for value in values where seen.insert(JSONSchemaDocument.canonicalKey(value)).inserted {
            if validator.validate(value, against: .object(rest), schemaPointer: pointer, instancePointer: "").isEmpty {
                kept.append(value)
            }
        }
        return kept.isEmpty ? nil : .anyOf(kept.map(GBNFExpression.jsonLiteral))
    }

    private mutating func visitNumber(
        _ schema: JSONObject,
        at pointer: String,
        integer: Bool
    ) throws(JSONSchemaError) -> GBNFExpression? {
        let lower = NumberRangeGrammar.lowerBound(of: schema)
        let upper = NumberRangeGrammar.upperBound(of: schema)
        let place = JSONSchemaChecker.describe(pointer)
        if integer {
            let low = lower.map { $0.exclusive ? $0.value.floor().incremented() : $0.value.ceiling() }
            let high = upper.map { $0.exclusive ? $0.value.ceiling().decremented() : $0.value.floor() }
            if low == nil, high == nil { return primitive("integer") }
            guard let expression = NumberRangeGrammar.integers(from: low, to: high) else {
                throw JSONSchemaChecker.invalid("At \(place), no integer lies within the bounds")
            }
            return expression
        }
        if lower == nil, upper == nil { return primitive("number") }
        guard let expression = NumberRangeGrammar.numbers(lower: lower, upper: upper) else {
            throw JSONSchemaError(
                .unsupportedSchema,
                "At \(place), the bounds are too close together for a grammar that writes up to "
                    + "\(NumberRangeGrammar.significantDigits) significant digits"
            )
        }
        return expression
    }

    // MARK: Building blocks

    /// A rule every grammar may share, defined on first use.
    mutating func primitive(_ name: String) -> GBNFExpression {
        if !rules.isDefined(name) {
            // Defined before its parts, which may refer back to it (value → object → value).
            rules.define(name, .rule(name))
            rules.define(name, primitiveBody(name))
        }
        return .rule(name)
    }

    private mutating func primitiveBody(_ name: String) -> GBNFExpression {
        let space = GBNFExpression.rule("space")
        switch name {
        case "space":
            // At most one space, after `{ [ , :` and before `} ]`: room for the `{"a": 1}`
            // style models have seen most, but no newlines or indentation, in which small
            // models can wander until they run out of tokens.
            return .anyOf([.empty, .literal(" ")])
        case "value":
            return .anyOf(["object", "array", "string", "number", "boolean", "null"].map { primitive($0) })
        case "object":
            _ = primitive("space")
            let member = GBNFExpression.concat([primitive("string"), .literal(":"), space, primitive("value")])
            return .concat([
                .literal("{"), space,
                .optional(.concat([member, .repeating(.concat([.literal(","), space, member]), min: 0, max: nil)])),
                space, .literal("}"),
            ])
        case "array":
            _ = primitive("space")
            let value = primitive("value")
            return .concat([
                .literal("["), space,
                .optional(.concat([value, .repeating(.concat([.literal(","), space, value]), min: 0, max: nil)])),
                space, .literal("]"),
            ])
        case "string":
            return .concat([.literal("\""), .repeating(primitive("char"), min: 0, max: nil), .literal("\"")])
        case "char":
            return Self.stringCharacter
        case "key-char":
            return .anyOf([
                .characters(UnicodeScalarSet.jsonEscaped.inverted),
                .concat([.literal("\\"), .characters(UnicodeScalarSet(characters: "\"\\bfnrt"))]),
            ])
        case "integral-part":
            return .anyOf([
                .literal("0"),
                .concat([.characters(UnicodeScalarSet([0x31...0x39])), .repeating(.digit, min: 0, max: 15)]),
            ])
        case "integer":
            return .concat([.optional(.literal("-")), primitive("integral-part")])
        case "number":
            // At most two exponent digits: the value stays a finite Double.
            return .concat([
                primitive("integer"),
                .optional(.concat([.literal("."), .repeating(.digit, min: 1, max: 16)])),
                .optional(
                    .concat([
                        .characters(UnicodeScalarSet(characters: "eE")),
                        .optional(.characters(UnicodeScalarSet(characters: "+-"))),
                        .repeating(.digit, min: 1, max: 2),
                    ])
                ),
            ])
        case "boolean":
            return .anyOf([.literal("true"), .literal("false")])
        default:
            return .literal("null")
        }
    }

    /// One character of a JSON string: anything JSON allows raw, or an escape; `\u`
    /// escapes only for valid scalars (a surrogate only as a pair), which any JSON parser
    /// decodes.
    private static let stringCharacter: GBNFExpression = {
        let hex = GBNFExpression.hexDigit
        let unicode = GBNFExpression.anyOf([
            .concat([
                .characters(UnicodeScalarSet(characters: "0123456789abcABCefEF")), .repeating(hex, min: 3, max: 3),
            ]),
            .concat([
                .characters(UnicodeScalarSet(characters: "dD")), .characters(UnicodeScalarSet([0x30...0x37])), hex, hex,
            ]),
            .concat([
                .characters(UnicodeScalarSet(characters: "dD")), .characters(UnicodeScalarSet(characters: "89abAB")),
                hex, hex,
                .literal("\\u"), .characters(UnicodeScalarSet(characters: "dD")),
                .characters(UnicodeScalarSet(characters: "cdefCDEF")), hex, hex,
            ]),
        ])
        return .anyOf([
            .characters(UnicodeScalarSet.jsonEscaped.inverted),
            .concat([
                .literal("\\"),
                .anyOf([.characters(UnicodeScalarSet(characters: "\"\\/bfnrt")), .concat([.literal("u"), unicode])]),
            ]),
        ])
    }()

    /// `item` from `min` to `max` times (`nil`: no limit), in a form llama.cpp expands
    /// faithfully: an item that can be empty is repeated as its non-empty form (llama.cpp
    /// would see left recursion), an item with repetitions inside gets its own rule, and
    /// counts above `repetitionBlock` are built from blocks of that many.
    mutating func repeated(_ item: GBNFExpression, min: Int, max: Int?, name: String) -> GBNFExpression {
        if let max, max <= 0 { return .empty }
        if min == 1, max == 1 { return item }
        var item = item
        var min = min
        if max != 1, isNullable(item) {
            guard let nonEmpty = nonEmpty(item, name: name) else { return .empty }
            item = nonEmpty
            min = 0
        }
        if Self.containsRepetition(item), (max ?? min) > 1 {
            item = rules.add("\(name)-part", item)
        }
        let block = Self.repetitionBlock
        guard min > block || (max ?? 0) > block else { return .repeating(item, min: min, max: max) }
        let exact = exactly(item, min, name: name)
        guard let max else { return .concat([exact, .repeating(item, min: 0, max: nil)]) }
        return .concat([exact, upTo(item, max - min, name: name)])
    }

    private mutating func exactly(_ item: GBNFExpression, _ count: Int, name: String) -> GBNFExpression {
        let block = Self.repetitionBlock
        if count <= block { return .repeating(item, min: count, max: count) }
        let blockRule = rules.add("\(name)-block", .repeating(item, min: block, max: block))
        return .concat([
            exactly(blockRule, count / block, name: "\(name)-block"),
            .repeating(item, min: count % block, max: count % block),
        ])
    }

    private mutating func upTo(_ item: GBNFExpression, _ count: Int, name: String) -> GBNFExpression {
        let block = Self.repetitionBlock
        if count <= block { return .repeating(item, min: 0, max: count) }
        let blockRule = rules.add("\(name)-block", .repeating(item, min: block, max: block))
        let blocks = count / block
        // Fewer than `blocks` whole blocks and any remainder, or exactly `blocks` blocks
        // and at most the last remainder.
        return .anyOf([
            .concat([upTo(blockRule, blocks - 1, name: "\(name)-block"), .repeating(item, min: 0, max: block - 1)]),
            .concat([
                exactly(blockRule, blocks, name: "\(name)-block"), .repeating(item, min: 0, max: count % block),
            ]),
        ])
    }

    private static func containsRepetition(_ expression: GBNFExpression) -> Bool {
        switch expression {
        case .literal, .characters, .rule: return false
        case .repetition: return true
        case .sequence(let elements), .choice(let elements): return elements.contains(where: containsRepetition)
        }
    }

    /// Whether `expression` can match the empty text, its rules by their bodies so far (the
    /// rule set is still growing, so there is no fixed point to look up yet).
    func isNullable(_ expression: GBNFExpression, visiting: Set<String> = []) -> Bool {
        GBNFAnalysis.isNullable(expression) { name in
            guard !visiting.contains(name), let body = rules.rules[name] else { return false }
            return isNullable(body, visiting: visiting.union([name]))
        }
    }

    /// The texts of `expression` except the empty one; `nil` when that is all it matches.
    private mutating func nonEmpty(_ expression: GBNFExpression, name: String) -> GBNFExpression? {
        guard isNullable(expression) else { return expression }
        switch expression {
        case .literal, .characters:
            return nil
        case .rule(let rule):
            guard let body = rules.rules[rule], let inner = nonEmpty(body, name: name) else { return nil }
            return rules.add("\(rule)-nonempty", inner)
        case .sequence(let elements):
            return nonEmptySequence(elements[...], name: name)
        case .choice(let alternatives):
            var result: [GBNFExpression] = []
            for alternative in alternatives {
                if let nonEmpty = nonEmpty(alternative, name: name) { result.append(nonEmpty) }
            }
            return result.isEmpty ? nil : .anyOf(result)
        case .repetition(let item, _, let max):
            guard let inner = nonEmpty(item, name: name) else { return nil }
            return repeated(inner, min: 1, max: max, name: name)
        }
    }

    /// Non-empty texts of a sequence of nullable elements: the first element non-empty and
    /// the rest as they are, or the first empty and the rest non-empty.
    private mutating func nonEmptySequence(_ elements: ArraySlice<GBNFExpression>, name: String) -> GBNFExpression? {
        guard let first = elements.first else { return nil }
        let rest = elements.dropFirst()
        var alternatives: [GBNFExpression] = []
        if let head = nonEmpty(first, name: name) { alternatives.append(.concat([head] + Array(rest))) }
        if let tail = nonEmptySequence(rest, name: name) { alternatives.append(tail) }
        return alternatives.isEmpty ? nil : .anyOf(alternatives)
    }

    /// `parent-child` for rule names; the root's children go without a prefix.
    static func childName(_ parent: String, _ child: String) -> String {
        parent == "root" ? child : "\(parent)-\(child)"
    }
}
