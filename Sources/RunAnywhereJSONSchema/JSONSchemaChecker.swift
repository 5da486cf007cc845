import RunAnywhereJSON

/// The first pass of `JSONSchemaGrammar`: walks every part of the schema that generation
/// can reach (following `$ref`s once each) and, before any grammar is written, refuses what is
/// malformed or contradictory (`.invalidSchema`) and what a grammar cannot enforce
/// (`.unsupportedSchema`, or a list of such keywords with best effort), each with its JSON
/// pointer.
struct JSONSchemaChecker {
    /// Keywords that only describe; they never make a value invalid.
    static let annotations: Set<String> = [
        "$schema", "$id", "$anchor", "$comment", "$vocabulary", "$dynamicAnchor", "$recursiveAnchor", "title",
        "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "contentMediaType",
        "contentEncoding", "contentSchema", "$defs", "definitions",
    ]

    /// Keywords the grammar enforces (`minProperties`/`maxProperties` only where trivially
    /// satisfied or "at least one").
    static let enforced: Set<String> = [
        "type", "enum", "const", "properties", "required", "additionalProperties", "items", "prefixItems",
        "additionalItems", "minItems", "maxItems", "minLength", "maxLength", "pattern", "format", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "anyOf", "oneOf", "allOf", "$ref", "minProperties", "maxProperties",
    ]

    static let typeNames: Set<String> = ["null", "boolean", "integer", "number", "string", "array", "object"]

    static let maximumDepth = 128

    let document: JSONSchemaDocument
    let options: JSONSchemaCompilerOptions
    private(set) var unenforced: [JSONSchemaKeywordLocation] = []
    private var visitedReferences: Set<String> = []

    init(document: JSONSchemaDocument, options: JSONSchemaCompilerOptions) {
        self.document = document
        self.options = options
    }

    mutating func check() throws(JSONSchemaError) {
        visitedReferences.insert("")
        try check(document.root, at: "", depth: 0)
    }

    /// Records `keyword` as not enforced, or throws when best effort is off.
    static func unsupported(
        _ keyword: String,
        at pointer: String,
        _ reason: String,
        options: JSONSchemaCompilerOptions,
        into list: inout [JSONSchemaKeywordLocation]
    ) throws(JSONSchemaError) {
        let location = JSONSchemaKeywordLocation(keyword: keyword, pointer: pointer)
        guard options.bestEffort else {
            throw JSONSchemaError(
                .unsupportedSchema,
                "The keyword '\(keyword)' at \(pointer) cannot be enforced while generating: \(reason)",
                recovery: "Remove it, or convert with bestEffort to leave it out of the grammar and check the output "
                    + "with JSONSchema.validate(_:)"
            )
        }
        if !list.contains(location) { list.append(location) }
    }

    static func invalid(_ message: String) -> JSONSchemaError {
        JSONSchemaError(.invalidSchema, message, recovery: "Fix the schema")
    }

    /// `the schema root` for `""`, the pointer otherwise.
    static func describe(_ pointer: String) -> String {
        pointer.isEmpty ? "the schema root" : pointer
    }

    private mutating func unsupported(_ keyword: String, at pointer: String, _ reason: String) throws(JSONSchemaError) {
        try Self.unsupported(
            keyword,
            at: JSONSchemaDocument.child(pointer, keyword),
            reason,
            options: options,
            into: &unenforced
        )
    }

    private mutating func check(_ schema: JSONValue, at pointer: String, depth: Int) throws(JSONSchemaError) {
        guard depth <= Self.maximumDepth else {
            throw JSONSchemaError(
                .unsupportedSchema,
                "The schema is nested more than \(Self.maximumDepth) levels deep at \(pointer)"
            )
        }
        let object: JSONObject
        switch schema {
        case .bool: return
        case .object(let value): object = value
        default:
            let kind = schema.typeName == "integer" ? "number" : schema.typeName
            throw Self.invalid("The schema at \(Self.describe(pointer)) is a \(kind), not an object or a Boolean")
        }
        for member in object {
            try checkKeyword(member.key, member.value, in: object, at: pointer, depth: depth)
        }
        try checkConsistency(object, at: pointer)
    }

    private mutating func checkKeyword(
        _ keyword: String,
        _ value: JSONValue,
        in object: JSONObject,
        at pointer: String,
        depth: Int
    ) throws(JSONSchemaError) {
        let here = JSONSchemaDocument.child(pointer, keyword)
        func fail(_ problem: String) -> JSONSchemaError { Self.invalid("'\(keyword)' at \(here) \(problem)") }
        switch keyword {
        case "type":
            let names = value.stringValue.map { [$0] } ?? value.arrayValue?.map { $0.stringValue ?? "" }
            guard let names, !names.isEmpty else { throw fail("must be a type name or a non-empty array of them") }
            for name in names where !Self.typeNames.contains(name) {
                throw fail(
                    "names an unknown type \(JSONValue.string(name).jsonText()) (known: null, boolean, integer, "
                        + "number, string, array, object)"
                )
            }
        case "enum":
            guard let values = value.arrayValue, !values.isEmpty else { throw fail("must be a non-empty array") }
        case "properties":
            guard let properties = value.objectValue else { throw fail("must be an object of schemas") }
            for property in properties {
                try check(property.value, at: JSONSchemaDocument.child(here, property.key), depth: depth + 1)
            }
        case "required":
            guard let names = value.arrayValue, names.allSatisfy({ $0.stringValue != nil }) else {
                throw fail("must be an array of strings")
            }
        case "additionalProperties", "additionalItems":
            try check(value, at: here, depth: depth + 1)
        case "items", "prefixItems":
            if let schemas = value.arrayValue {
                for (index, item) in schemas.enumerated() {
                    try check(item, at: JSONSchemaDocument.child(here, String(index)), depth: depth + 1)
                }
            } else {
                try check(value, at: here, depth: depth + 1)
            }
        case "minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties":
            guard let count = value.integerValue, count >= 0 else { throw fail("must be a non-negative integer") }
        case "minimum", "maximum":
            guard value.doubleValue != nil else { throw fail("must be a number") }
        case "exclusiveMinimum", "exclusiveMaximum":
            guard value.doubleValue != nil || value.boolValue != nil else { throw fail("must be a number") }
        case "pattern":
            guard let pattern = value.stringValue else { throw fail("must be a string") }
            do throws(ECMARegex.Failure) {
                _ = try ECMARegex(parsing: pattern)
            } catch {
                switch error {
                case .invalid(let problem):
                    throw fail("is not a regular expression: \(problem)")
                case .unsupported(let feature):
                    try Self.unsupported(
                        "pattern",
                        at: here,
                        "a grammar cannot express \(feature)",
                        options: options,
                        into: &unenforced
                    )
                }
            }
        case "format":
            guard value.stringValue != nil else { throw fail("must be a string") }
        case "anyOf", "oneOf", "allOf":
            guard let schemas = value.arrayValue, !schemas.isEmpty else {
                throw fail("must be a non-empty array of schemas")
            }
            for (index, item) in schemas.enumerated() {
                try check(item, at: JSONSchemaDocument.child(here, String(index)), depth: depth + 1)
            }
        case "$ref":
            guard let reference = value.stringValue else { throw fail("must be a string") }
            switch document.resolve(reference) {
            case .found(let target, let targetPointer):
                if visitedReferences.insert(targetPointer).inserted {
                    try check(target, at: targetPointer, depth: depth + 1)
                }
            case .notFound:
                throw fail("refers to \(reference), which is not in the schema")
            case .remote:
                try Self.unsupported(
                    "$ref",
                    at: here,
                    "\(reference) is in another document; only references within the schema (#/$defs/…) are followed",
                    options: options,
                    into: &unenforced
                )
            }
        case "$defs", "definitions":
            guard value.objectValue != nil else { throw fail("must be an object of schemas") }
        default:
            try checkUnenforced(keyword, value, in: object, at: pointer)
        }
    }

    /// Keywords a grammar cannot enforce, unless their value makes them say nothing.
    private mutating func checkUnenforced(
        _ keyword: String,
        _ value: JSONValue,
        in object: JSONObject,
        at pointer: String
    ) throws(JSONSchemaError) {
        switch keyword {
        case "uniqueItems":
            let atMostOne = (object["maxItems"]?.integerValue ?? 2) <= 1
            if value == .bool(true), !atMostOne {
                try unsupported(keyword, at: pointer, "a grammar cannot compare array elements")
            }
        case "multipleOf":
            try unsupported(keyword, at: pointer, "a grammar cannot test divisibility")
        case "not":
            try unsupported(keyword, at: pointer, "a grammar cannot exclude the values of a schema")
        case "if":
            try unsupported(keyword, at: pointer, "a grammar cannot choose a schema by a condition")
        case "patternProperties", "dependentRequired", "dependentSchemas", "dependencies":
            if value.objectValue?.isEmpty != true {
                try unsupported(keyword, at: pointer, "the grammar writes only declared or additional members")
            }
        case "propertyNames", "unevaluatedProperties", "unevaluatedItems":
            if value != .bool(true), value != .object(JSONObject()) {
                try unsupported(keyword, at: pointer, "the grammar cannot constrain members or elements this way")
            }
        case "contains":
            try unsupported(keyword, at: pointer, "the grammar cannot require one element among others")
        case "$dynamicRef", "$recursiveRef":
            try unsupported(keyword, at: pointer, "dynamic references are not followed")
        default:
            // Annotations, keywords made moot by another one (then/else without if,
            // minContains without contains), and unknown keywords, which JSON Schema ignores.
            break
        }
    }

    private func checkConsistency(_ object: JSONObject, at pointer: String) throws(JSONSchemaError) {
        let place = Self.describe(pointer)
        for (low, high) in [("minLength", "maxLength"), ("minItems", "maxItems"), ("minProperties", "maxProperties")] {
            if let minimum = object[low]?.integerValue, let maximum = object[high]?.integerValue, minimum > maximum {
                throw Self.invalid("At \(place), \(low) \(minimum) is greater than \(high) \(maximum)")
            }
        }
        if let lower = NumberRangeGrammar.lowerBound(of: object), let upper = NumberRangeGrammar.upperBound(of: object),
            upper.value < lower.value || (upper.value == lower.value && (lower.exclusive || upper.exclusive))
        {
            throw Self.invalid("At \(place), the lower bound \(lower.value) is above the upper bound \(upper.value)")
        }
        var additional = object["additionalProperties"]
        if additional == nil, options.strictObjects, JSONSchemaDocument.strictObjectsClose(object) {
            additional = .bool(false)
        }
        if additional == .bool(false), object["patternProperties"] == nil {
            let declared = object["properties"]?.objectValue ?? JSONObject()
            for name in object["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where declared[name] == nil {
                let cause = object["additionalProperties"] == nil ? "strictObjects" : "additionalProperties: false"
                throw Self.invalid(
                    "At \(place), 'required' names \"\(name)\", which is not in 'properties' and which \(cause) forbids"
                )
            }
        }
    }
}
