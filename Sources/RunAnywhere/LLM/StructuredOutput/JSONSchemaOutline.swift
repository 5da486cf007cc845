import RunAnywhereJSON

/// A short, readable outline of a schema for the model's prompt, e.g.
/// `{"name": string, "age": integer 0…150, "tags"?: [string, …]}`.
///
/// Small models copy what they see: a full JSON Schema in the prompt tempts them to echo
/// schema keywords, while the outline reads like the instance they should write. The
/// grammar, not this text, is what makes the output valid.
enum JSONSchemaOutline {
    private static let maximumDepth = 12

    /// The instruction placed in the system prompt.
    static func instruction(for schema: JSONSchema, style: StructuredOutputOptions.SchemaPrompt) -> String? {
        switch style {
        case .none:
            return nil
        case .compact:
            return "Reply with JSON only, of this shape:\n" + outline(schema)
        case .full:
            return "Reply with JSON only, a valid instance of this JSON Schema:\n" + schema.value.jsonText()
        }
    }

    /// The outline of `schema`; definitions reached by `$ref` are named, and outlined once below.
    static func outline(_ schema: JSONSchema) -> String {
        var writer = Writer(root: schema.value)
        var text = writer.describe(schema.value, depth: 0)
        var written: Set<String> = []
        while let name = writer.pendingDefinitions.first(where: { !written.contains($0) }) {
            written.insert(name)
            if let definition = writer.definition(named: name) {
                text += "\nwhere \(name) = " + writer.describe(definition, depth: 0)
            }
        }
        return text
    }

    private struct Writer {
        let root: JSONValue
        var pendingDefinitions: [String] = []

        func definition(named name: String) -> JSONValue? {
            root["$defs"]?[name] ?? root["definitions"]?[name]
        }

        mutating func describe(_ schema: JSONValue, depth: Int) -> String {
            guard depth < JSONSchemaOutline.maximumDepth else { return "…" }
            guard case .object(let object) = schema else {
                return schema == .bool(false) ? "nothing" : "any JSON value"
            }
            var text = body(object, depth: depth)
            if let description = object["description"]?.stringValue, !description.isEmpty {
                text += " (\(description))"
            }
            return text
        }

        private mutating func body(_ object: JSONObject, depth: Int) -> String {
            if let reference = object["$ref"]?.stringValue {
                let name = String(reference.split(separator: "/").last ?? Substring(reference))
                if !pendingDefinitions.contains(name) { pendingDefinitions.append(name) }
                return name
            }
            if let constant = object["const"] { return constant.jsonText() }
            if let values = object["enum"]?.arrayValue { return values.map { $0.jsonText() }.joined(separator: " | ") }
            for keyword in ["anyOf", "oneOf"] {
                if let options = object[keyword]?.arrayValue {
                    return options.map { describe($0, depth: depth + 1) }.joined(separator: " | ")
                }
            }
            if let parts = object["allOf"]?.arrayValue {
                return parts.map { describe($0, depth: depth + 1) }.joined(separator: " & ")
            }
            let types: [String] =
                if let type = object["type"]?.stringValue {
                    [type]
                } else if let list = object["type"]?.arrayValue {
                    list.compactMap(\.stringValue)
                } else if object["properties"] != nil {
                    ["object"]
                } else if object["items"] != nil || object["prefixItems"] != nil {
                    ["array"]
                } else {
                    []
                }
            guard !types.isEmpty else { return "any JSON value" }
            return types.map { describe(type: $0, object, depth: depth) }.joined(separator: " | ")
        }

        private mutating func describe(type: String, _ object: JSONObject, depth: Int) -> String {
            switch type {
            case "object":
                let properties = object["properties"]?.objectValue ?? JSONObject()
                let required = Set(object["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
                var members = properties.members.map { member in
                    let key = JSONValue.string(member.key).jsonText() + (required.contains(member.key) ? "" : "?")
                    return key + ": " + describe(member.value, depth: depth + 1)
                }
                if let extra = object["additionalProperties"], extra != .bool(false) {
                    members.append("…")
                } else if object["additionalProperties"] == nil, properties.isEmpty {
                    members.append("…")
                }
                return "{" + members.joined(separator: ", ") + "}"
            case "array":
                var text: String
                if let prefix = object["prefixItems"]?.arrayValue {
                    text = "[" + prefix.map { describe($0, depth: depth + 1) }.joined(separator: ", ") + "]"
                } else if let items = object["items"] {
                    text = "[" + describe(items, depth: depth + 1) + ", …]"
                } else {
                    text = "[…]"
                }
                text += Self.bounds(object["minItems"], object["maxItems"], unit: "items")
                return text
            case "string":
                var text = "string"
                if let format = object["format"]?.stringValue { text += " (\(format))" }
                if let pattern = object["pattern"]?.stringValue { text += " matching /\(pattern)/" }
                text += Self.bounds(object["minLength"], object["maxLength"], unit: "characters")
                return text
            case "integer", "number":
                let low = object["minimum"] ?? object["exclusiveMinimum"]
                let high = object["maximum"] ?? object["exclusiveMaximum"]
                guard low != nil || high != nil else { return type }
                return type + " " + (low?.jsonText() ?? "") + "…" + (high?.jsonText() ?? "")
            default:
                return type
            }
        }

        private static func bounds(_ low: JSONValue?, _ high: JSONValue?, unit: String) -> String {
            switch (low?.integerValue, high?.integerValue) {
            case (nil, nil): ""
            case (let low?, nil): " (at least \(low) \(unit))"
            case (nil, let high?): " (at most \(high) \(unit))"
            case (let low?, let high?): low == high ? " (\(low) \(unit))" : " (\(low)–\(high) \(unit))"
            }
        }
    }
}
