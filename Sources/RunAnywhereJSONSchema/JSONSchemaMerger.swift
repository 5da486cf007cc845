import RunAnywhereJSON

/// Merges the parts of an `allOf` (with `$ref`s already followed) into one schema that
/// allows exactly the values all parts allow, keyword by keyword: types and enums intersect,
/// bounds tighten, `required` unites, and each property gets the schemas every part gives it
/// (its own `properties` entry, else its `additionalProperties`), so an
/// `additionalProperties: false` in one part still forbids the others' extra members.
///
/// Two different `pattern`s or `format`s cannot be merged into one grammar: the first stays
/// and the others are reported.
struct JSONSchemaMerger {
    /// A part: a schema object without `$ref`, `allOf`, `anyOf` or `oneOf`, and its pointer.
    struct Part {
        var schema: JSONObject
        var pointer: String
    }

    /// The merged schema, or `nil` when the parts contradict each other.
    private(set) var merged: JSONObject? = JSONObject()
    /// Keywords that had to be left out.
    private(set) var conflicts: [JSONSchemaKeywordLocation] = []

    init(_ parts: [Part]) {
        for part in parts {
            guard let current = merged else { return }
            merged = merge(current, Self.normalized(part.schema), pointer: part.pointer)
        }
    }

    /// Draft-4 Boolean `exclusiveMinimum` / `exclusiveMaximum` as 2020-12 numbers, and
    /// `const` as a one-value `enum`.
    static func normalized(_ schema: JSONObject) -> JSONObject {
        var result = schema
        for (bound, exclusive) in [("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")] {
            if case .bool(let flag)? = result[exclusive] {
                result[exclusive] = flag ? result[bound] : nil
                if flag { result[bound] = nil }
            }
        }
        if let constant = result["const"] {
            let values = result["enum"]?.arrayValue ?? [constant]
            result["enum"] = .array(values.filter { JSONSchemaDocument.equal($0, constant) })
            result["const"] = nil
        }
        return result
    }

    private mutating func merge(_ base: JSONObject, _ part: JSONObject, pointer: String) -> JSONObject? {
        var result = base
        for member in part {
            let key = member.key
            let value = member.value
            guard let existing = result[key] else {
                if !["properties", "additionalProperties", "items", "prefixItems", "additionalItems"].contains(key) {
                    result[key] = value
                }
                continue
            }
            switch key {
            case "type":
                let types = Self.typeSet(existing).intersection(Self.typeSet(value))
                if types.isEmpty { return nil }
                let ordered = JSONSchemaChecker.typeNames.sorted().filter { types.contains($0) }
                result[key] = .array(ordered.map { .string($0) })
            case "enum":
                let values = (existing.arrayValue ?? []).filter { candidate in
                    (value.arrayValue ?? []).contains { JSONSchemaDocument.equal(candidate, $0) }
                }
                if values.isEmpty { return nil }
                result[key] = .array(values)
            case "required":
                var names = existing.arrayValue ?? []
                for name in value.arrayValue ?? [] where !names.contains(name) { names.append(name) }
                result[key] = .array(names)
            case "minLength", "minItems", "minProperties":
                result[key] = .integer(max(existing.integerValue ?? 0, value.integerValue ?? 0))
            case "maxLength", "maxItems", "maxProperties":
                result[key] = .integer(min(existing.integerValue ?? .max, value.integerValue ?? .max))
            case "minimum", "exclusiveMinimum":
                if let old = SchemaDecimal(existing), let new = SchemaDecimal(value), old < new { result[key] = value }
            case "maximum", "exclusiveMaximum":
                if let old = SchemaDecimal(existing), let new = SchemaDecimal(value), new < old { result[key] = value }
            case "pattern", "format":
                if existing != value {
                    conflicts.append(
                        JSONSchemaKeywordLocation(keyword: key, pointer: JSONSchemaDocument.child(pointer, key))
                    )
                }
            default:
                break
            }
        }
        mergeMembers(base, part, into: &result)
        mergeElements(base, part, into: &result)
        return result
    }

    /// `type` as a set of names; no `type` is every type.
    private static func typeSet(_ value: JSONValue) -> Set<String> {
        var names = Set(value.stringValue.map { [$0] } ?? value.arrayValue?.compactMap(\.stringValue) ?? [])
        if names.contains("number") { names.insert("integer") }
        return names
    }

    /// Both schemas (`nil`: no constraint).
    private static func both(_ a: JSONValue?, _ b: JSONValue?) -> JSONValue? {
        guard let a, a != .bool(true), a != .object(JSONObject()) else { return b }
        guard let b, b != .bool(true), b != .object(JSONObject()) else { return a }
        if a == .bool(false) || b == .bool(false) { return .bool(false) }
        if a == b { return a }
        return .object(["allOf": [a, b]])
    }

    private func mergeMembers(_ a: JSONObject, _ b: JSONObject, into result: inout JSONObject) {
        let propertiesA = a["properties"]?.objectValue ?? JSONObject()
        let propertiesB = b["properties"]?.objectValue ?? JSONObject()
        var properties = JSONObject()
        for name in propertiesA.keys + propertiesB.keys where properties[name] == nil {
            let schema = Self.both(
                propertiesA[name] ?? a["additionalProperties"],
                propertiesB[name] ?? b["additionalProperties"]
            )
            properties[name] = schema ?? .bool(true)
        }
        result["properties"] = properties.isEmpty ? nil : .object(properties)
        result["additionalProperties"] = Self.both(a["additionalProperties"], b["additionalProperties"])
    }

    private func mergeElements(_ a: JSONObject, _ b: JSONObject, into result: inout JSONObject) {
        let elementsA = JSONSchemaValidator.elementSchemas(of: a)
        let elementsB = JSONSchemaValidator.elementSchemas(of: b)
        let count = max(elementsA.prefix.count, elementsB.prefix.count)
        var prefix: [JSONValue] = []
        for index in 0..<count {
            let schemaA = index < elementsA.prefix.count ? elementsA.prefix[index] : elementsA.rest
            let schemaB = index < elementsB.prefix.count ? elementsB.prefix[index] : elementsB.rest
            prefix.append(Self.both(schemaA, schemaB) ?? .bool(true))
        }
        result["prefixItems"] = prefix.isEmpty ? nil : .array(prefix)
        result["items"] = Self.both(elementsA.rest, elementsB.rest)
        result["additionalItems"] = nil
    }
}
