import RunAnywhereGBNF
import RunAnywhereJSON

/// Objects and arrays.
extension JSONSchemaConverter {
    // MARK: Objects

    /// Members in a fixed order: the required ones first (in `properties` order, then
    /// required names `properties` does not declare), then any subset of the optional ones in
    /// order, then the additional ones, whose names are all other names.
    mutating func visitObject(
        _ schema: JSONObject,
        at pointer: String,
        name: String
    ) throws(JSONSchemaError) -> GBNFExpression? {
        let properties = schema["properties"]?.objectValue ?? JSONObject()
        var required: [String] = []
        for key in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where !required.contains(key) {
            required.append(key)
        }
        let additional = schema["additionalProperties"]
        let additionalAllowed = additional != .bool(false)
        let minProperties = schema["minProperties"]?.integerValue
        let maxProperties = schema["maxProperties"]?.integerValue
        let anything = additional == nil || additional == .bool(true) || additional == .object(JSONObject())
        if properties.isEmpty, required.isEmpty, anything, (minProperties ?? 0) == 0, maxProperties == nil {
            return primitive("object")
        }
        let space = primitive("space")
        var requiredMembers: [GBNFExpression] = []
        var optionalMembers: [(key: String, member: GBNFExpression)] = []
        for property in properties {
            let isRequired = required.contains(property.key)
            let valueName = Self.childName(name, property.key)
            let propertyPointer = JSONSchemaDocument.child(pointer, "properties", property.key)
            guard let value = try visitChild(property.value, at: propertyPointer, name: valueName) else {
                // No value fits: a required member makes the object impossible, an optional one
                // is never written.
                if isRequired { return nil }
                continue
            }
            let member = Self.member(property.key, rules.inlineOrAdd(valueName, value), space: space)
            if isRequired {
                requiredMembers.append(member)
            } else {
                optionalMembers.append((property.key, member))
            }
        }
        let additionalPointer = JSONSchemaDocument.child(pointer, "additionalProperties")
        for key in required where properties[key] == nil {
            let valueName = Self.childName(name, key)
            guard additionalAllowed,
                let value = try visitChild(additional ?? .bool(true), at: additionalPointer, name: valueName)
            else { return nil }
            requiredMembers.append(Self.member(key, rules.inlineOrAdd(valueName, value), space: space))
        }
        var additionalMember: GBNFExpression?
        let valueName = Self.childName(name, "additional-value")
        if additionalAllowed,
            let value = try visitChild(additional ?? .bool(true), at: additionalPointer, name: valueName)
        {
            let key = rules.inlineOrAdd(
                Self.childName(name, "additional-key"),
                keyExcluding(properties.keys + required)
            )
            additionalMember = rules.add(
                Self.childName(name, "additional-kv"),
                .concat([key, .literal(":"), space, rules.inlineOrAdd(valueName, value)])
            )
        }
        let atLeastOne = try checkMemberCounts(
            fewest: requiredMembers.count,
            most: additionalMember == nil ? requiredMembers.count + optionalMembers.count : nil,
            minimum: minProperties,
            maximum: maxProperties,
            at: pointer
        )
        return objectBody(
            required: requiredMembers,
            optional: optionalMembers,
            additional: additionalMember,
            atLeastOne: atLeastOne,
            name: name
        )
    }

    private static func member(_ key: String, _ value: GBNFExpression, space: GBNFExpression) -> GBNFExpression {
        .concat([.literal(JSONValue.string(key).jsonText() + ":"), space, value])
    }

    /// Checks `minProperties`/`maxProperties` against what the object can hold; `true`
    /// when at least one optional member must be written.
    private mutating func checkMemberCounts(
        fewest: Int,
        most: Int?,
        minimum: Int64?,
        maximum: Int64?,
        at pointer: String
    ) throws(JSONSchemaError) -> Bool {
        let place = JSONSchemaChecker.describe(pointer)
        var atLeastOne = false
        if let minimum, minimum > fewest {
            if let most, minimum > most {
                throw JSONSchemaChecker.invalid(
                    "At \(place), minProperties \(minimum) is more than the \(most) members allowed"
                )
            }
            if minimum == 1, fewest == 0 {
                atLeastOne = true
            } else {
                try unsupported(
                    "minProperties",
                    at: JSONSchemaDocument.child(pointer, "minProperties"),
                    "the grammar can only require one member of an object that has no required ones"
                )
            }
        }
        if let maximum, maximum < most ?? .max {
            if maximum < fewest {
                throw JSONSchemaChecker.invalid(
                    "At \(place), maxProperties \(maximum) is less than the \(fewest) required members"
                )
            }
            try unsupported(
                "maxProperties",
                at: JSONSchemaDocument.child(pointer, "maxProperties"),
                "the grammar cannot count optional members"
            )
        }
        return atLeastOne
    }

    private mutating func objectBody(
        required: [GBNFExpression],
        optional: [(key: String, member: GBNFExpression)],
        additional: GBNFExpression?,
        atLeastOne: Bool,
        name: String
    ) -> GBNFExpression {
        let space = primitive("space")
        let open: [GBNFExpression] = [.literal("{"), space]
        let close: [GBNFExpression] = [space, .literal("}")]
        let comma = GBNFExpression.concat([.literal(","), space])
        let additionalTail =
            additional.map { GBNFExpression.repeating(.concat([comma, $0]), min: 0, max: nil) } ?? .empty
        if !required.isEmpty {
            var parts = open
            for (index, member) in required.enumerated() {
                if index > 0 { parts.append(comma) }
                parts.append(member)
            }
            for entry in optional { parts.append(.optional(.concat([comma, entry.member]))) }
            parts.append(additionalTail)
            return .concat(parts + close)
        }
        if optional.isEmpty, additional == nil { return .concat(open + close) }
        // Without a required member the first one written has no comma before it: one
        // alternative per possible first member, each followed by a rule for what may come
        // after it (shared, as in llama.cpp's converter, so the grammar stays linear).
        var alternatives: [GBNFExpression] = []
        if let additional { alternatives.append(.concat([additional, additionalTail])) }
        var tail = additionalTail
        for entry in optional.reversed() {
            let member = rules.inlineOrAdd(Self.childName(name, "\(entry.key)-kv"), entry.member)
            alternatives.insert(.concat([member, tail]), at: 0)
            tail = rules.inlineOrAdd(
                Self.childName(name, "\(entry.key)-rest"),
                .concat([.optional(.concat([comma, member])), tail])
            )
        }
        let members = GBNFExpression.anyOf(alternatives)
        return .concat(open + [atLeastOne ? members : .optional(members)] + close)
    }

    /// A member name that is none of `names`, as a JSON string. Escapes are limited to the
    /// short ones, so that every name has one spelling and the check is exact (a model could
    /// otherwise write a declared name as `\u0061`).
    private mutating func keyExcluding(_ names: [String]) -> GBNFExpression {
        guard !names.isEmpty else { return primitive("string") }
        var trie = KeyTrie()
        for name in names { trie.insert(name) }
        let anyCharacters = GBNFExpression.repeating(primitive("key-char"), min: 0, max: nil)
        return .concat([.literal("\""), trie.excluding(node: 0, rest: anyCharacters), .literal("\"")])
    }

    // MARK: Arrays

    /// Elements separated by commas; a tuple writes all its positions (as far as `maxItems`
    /// allows), then the elements `items` allows. Without `items` a tuple is closed in the
    /// grammar (JSON Schema would allow any further elements).
    mutating func visitArray(
        _ schema: JSONObject,
        at pointer: String,
        name: String
    ) throws(JSONSchemaError) -> GBNFExpression? {
        let elements = JSONSchemaValidator.elementSchemas(of: schema)
        let minItems = Int(schema["minItems"]?.integerValue ?? 0)
        let maxItems = schema["maxItems"]?.integerValue.map { Int($0) }
        // Bounds merged from allOf parts can contradict each other.
        if let maxItems, minItems > maxItems { return nil }
        let space = primitive("space")
        let open: [GBNFExpression] = [.literal("["), space]
        let close: [GBNFExpression] = [space, .literal("]")]
        let comma = GBNFExpression.concat([.literal(","), space])
        let rest = elements.rest
        let restPointer = JSONSchemaDocument.child(pointer, elements.restKey)
        let restIsAnything = rest == nil || rest == .bool(true) || rest == .object(JSONObject())
        if elements.prefix.isEmpty {
            if restIsAnything, minItems == 0, maxItems == nil { return primitive("array") }
            let itemName = Self.childName(name, "item")
            guard maxItems != 0, let item = try visitChild(rest ?? .bool(true), at: restPointer, name: itemName) else {
                return minItems == 0 ? .concat(open + close) : nil
            }
            let element = rules.inlineOrAdd(itemName, item)
            let more = repeated(
                .concat([comma, element]),
                min: max(0, minItems - 1),
                max: maxItems.map { $0 - 1 },
                name: Self.childName(name, "items")
            )
            let list = GBNFExpression.concat([element, more])
            return .concat(open + [minItems == 0 ? .optional(list) : list] + close)
        }
        let count = elements.prefix.count
        var written = count
        var extraMinimum = 0
        var extraMaximum: Int? = 0
        if let maxItems, maxItems < count {
            written = maxItems
        } else {
            extraMinimum = max(0, minItems - count)
            if rest == nil {
                extraMaximum = extraMinimum
            } else if rest == .bool(false) {
                if extraMinimum > 0 { return nil }
            } else {
                extraMaximum = maxItems.map { $0 - count }
            }
        }
        var parts = open
        for index in 0..<written {
            let elementName = Self.childName(name, "tuple-\(index)")
            let elementPointer = JSONSchemaDocument.child(pointer, elements.prefixKey, String(index))
            guard let element = try visitChild(elements.prefix[index], at: elementPointer, name: elementName) else {
                return nil
            }
            if index > 0 { parts.append(comma) }
            parts.append(rules.inlineOrAdd(elementName, element))
        }
        if written == count, extraMaximum != 0 {
            let itemName = Self.childName(name, "item")
            if let item = try visitChild(rest ?? .bool(true), at: restPointer, name: itemName) {
                let element = rules.inlineOrAdd(itemName, item)
                parts.append(
                    repeated(
                        .concat([comma, element]),
                        min: extraMinimum,
                        max: extraMaximum,
                        name: Self.childName(name, "items")
                    )
                )
            } else if extraMinimum > 0 {
                return nil
            }
        }
        return .concat(parts + close)
    }
}

/// Member names as a trie of their JSON spellings, for the rule that matches every other name.
private struct KeyTrie {
    private struct Node {
        var children: [String: Int] = [:]
        var isName = false
    }

    private var nodes = [Node()]

    /// The short escapes JSON has; `key-char` allows these and no `\u`.
    private static let escapes: [UInt32: String] = [
        0x22: "\"", 0x5C: "\\", 0x08: "b", 0x0C: "f", 0x0A: "n", 0x0D: "r", 0x09: "t",
    ]

    mutating func insert(_ name: String) {
        var units: [String] = []
        for scalar in name.unicodeScalars {
            if let escape = Self.escapes[scalar.value] {
                units.append("\\" + escape)
            } else if scalar.value < 0x20 {
                // Needs a \u escape, which a generated name never uses: nothing to exclude.
                return
            } else {
                units.append(String(scalar))
            }
        }
        var index = 0
        for unit in units {
            if let next = nodes[index].children[unit] {
                index = next
            } else {
                nodes.append(Node())
                nodes[index].children[unit] = nodes.count - 1
                index = nodes.count - 1
            }
        }
        nodes[index].isName = true
    }

    /// The spellings that leave the trie below `node` or stop at a node that ends no name.
    func excluding(node index: Int, rest: GBNFExpression) -> GBNFExpression {
        let node = nodes[index]
        var alternatives: [GBNFExpression] = []
        var rawTaken = UnicodeScalarSet()
        var escapesTaken: Set<String> = []
        for unit in node.children.keys.sorted() {
            if unit.hasPrefix("\\") {
                escapesTaken.insert(String(unit.dropFirst()))
            } else {
                rawTaken = rawTaken.union(UnicodeScalarSet(characters: unit))
            }
            alternatives.append(.concat([.literal(unit), excluding(node: node.children[unit] ?? 0, rest: rest)]))
        }
        var others: [GBNFExpression] = []
        let raw = UnicodeScalarSet.jsonEscaped.inverted.subtracting(rawTaken)
        if !raw.isEmpty { others.append(.characters(raw)) }
        let escapes = Self.escapes.values.filter { !escapesTaken.contains($0) }.sorted().joined()
        if !escapes.isEmpty {
            others.append(.concat([.literal("\\"), .characters(UnicodeScalarSet(characters: escapes))]))
        }
        alternatives.append(.concat([.anyOf(others), rest]))
        if !node.isName { alternatives.append(.empty) }
        return .anyOf(alternatives)
    }
}
