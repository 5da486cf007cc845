import RunAnywhereJSON

/// A JSON Schema (draft 2020-12 keywords) describing the JSON a model must produce.
///
/// Write one as JSON text, or build it from parts; both give the same schema:
///
/// ```swift
/// let person = JSONSchema.object([
///     "name": .string(minLength: 1),
///     "age": .integer(minimum: 0, maximum: 150),
///     "email": .string(format: "email"),
/// ], required: ["name", "age"])
/// let same = try JSONSchema(parsing: #"{"type": "object", "properties": {...}}"#)
/// ```
///
/// The schema is kept as the JSON it is (``value``), so every keyword survives, including
/// the ones the SDK does not enforce: `JSONSchemaGrammar` refuses those by name, or lists
/// them when asked for best effort. `RunAnywhere` re-exports this module and adds the throwing
/// initializers that report `SDKException`s: `init(_:)` and `init(parsing:)`.
public struct JSONSchema: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The schema document: an object, or `true` / `false`.
    public let value: JSONValue

    /// Wraps a schema document, which must be an object or a Boolean.
    package init(checking value: JSONValue) throws(JSONSchemaError) {
        switch value {
        case .object, .bool: self.value = value
        default:
            let kind = value.typeName == "integer" ? "a number" : "a \(value.typeName)"
            throw JSONSchemaError(.invalidSchema, "A JSON Schema must be an object or a Boolean, not \(kind)")
        }
    }

    /// Parses a schema from JSON text.
    package init(checkingText text: String) throws(JSONSchemaError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(text)
        } catch {
            throw JSONSchemaError(.invalidSchema, "The schema is not valid JSON: \(error.message)")
        }
        try self.init(checking: value)
    }

    /// A schema made by the builders below; they only produce objects.
    private init(trusted value: JSONValue) {
        self.value = value
    }

    /// Decodes the schema document.
    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        do {
            try self.init(checking: value)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.message)
            )
        }
    }

    /// Encodes the schema document as it is.
    public func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
    }

    /// The schema as compact JSON text.
    public var description: String { value.jsonText() }

    /// The schema as compact JSON text (the original SDK's name for ``description``).
    public var jsonSchemaString: String { value.jsonText() }

    /// The schema with a `description` keyword, which the model sees in the prompt.
    public func described(_ description: String) -> JSONSchema {
        guard case .object(var object) = value else { return self }
        object["description"] = .string(description)
        return JSONSchema(trusted: .object(object))
    }

    // MARK: Builders

    /// Any JSON value.
    public static let any = JSONSchema(trusted: .object([:]))

    /// `true` or `false`.
    public static let boolean = JSONSchema(trusted: ["type": "boolean"])

    /// `null`.
    public static let null = JSONSchema(trusted: ["type": "null"])

    /// A string, optionally bounded in length, matching a regular expression (anchored,
    /// ECMA-262 syntax) or in a `format` (`date`, `time`, `date-time`, `uuid`, `email`, …).
    public static func string(
        minLength: Int? = nil,
        maxLength: Int? = nil,
        pattern: String? = nil,
        format: String? = nil,
        description: String? = nil
    ) -> JSONSchema {
        var object: JSONObject = ["type": "string"]
        object["minLength"] = minLength.map { .integer(Int64($0)) }
        object["maxLength"] = maxLength.map { .integer(Int64($0)) }
        object["pattern"] = pattern.map { .string($0) }
        object["format"] = format.map { .string($0) }
        object["description"] = description.map { .string($0) }
        return JSONSchema(trusted: .object(object))
    }

    /// An integer, optionally bounded (inclusive).
    public static func integer(minimum: Int? = nil, maximum: Int? = nil, description: String? = nil) -> JSONSchema {
        var object: JSONObject = ["type": "integer"]
        object["minimum"] = minimum.map { .integer(Int64($0)) }
        object["maximum"] = maximum.map { .integer(Int64($0)) }
        object["description"] = description.map { .string($0) }
        return JSONSchema(trusted: .object(object))
    }

    /// A number, optionally bounded (inclusive).
    public static func number(minimum: Double? = nil, maximum: Double? = nil, description: String? = nil) -> JSONSchema
    {
        var object: JSONObject = ["type": "number"]
        object["minimum"] = minimum.map { .number($0) }
        object["maximum"] = maximum.map { .number($0) }
        object["description"] = description.map { .string($0) }
        return JSONSchema(trusted: .object(object))
    }

    /// One of the given strings.
    public static func enumeration(_ values: [String], description: String? = nil) -> JSONSchema {
        var object: JSONObject = ["type": "string", "enum": .array(values.map { .string($0) })]
        object["description"] = description.map { .string($0) }
        return JSONSchema(trusted: .object(object))
    }

    /// Exactly this value.
    public static func constant(_ value: JSONValue) -> JSONSchema {
        JSONSchema(trusted: ["const": value])
    }

    /// An array whose elements all match `items`, optionally bounded in count.
    public static func array(
        of items: JSONSchema,
        minItems: Int? = nil,
        maxItems: Int? = nil,
        description: String? = nil
    ) -> JSONSchema {
        var object: JSONObject = ["type": "array", "items": items.value]
        object["minItems"] = minItems.map { .integer(Int64($0)) }
        object["maxItems"] = maxItems.map { .integer(Int64($0)) }
        object["description"] = description.map { .string($0) }
        return JSONSchema(trusted: .object(object))
    }

    /// An object with these properties, in this order.
    ///
    /// - Parameters:
    ///   - properties: The properties and their schemas; the model writes them in this order.
    ///   - required: The properties that must be present; `nil` means all of them.
    ///   - additionalProperties: Whether other members are allowed.
    ///   - description: What the object is, for the model.
    public static func object(
        _ properties: KeyValuePairs<String, JSONSchema>,
        required: [String]? = nil,
        additionalProperties: Bool = false,
        description: String? = nil
    ) -> JSONSchema {
        object(
            orderedProperties: properties.map { (name: $0.key, schema: $0.value) },
            required: required,
            additionalProperties: additionalProperties,
            description: description
        )
    }

    /// An object with these properties, in this order (for properties computed at run time).
    public static func object(
        orderedProperties properties: [(name: String, schema: JSONSchema)],
        required: [String]? = nil,
        additionalProperties: Bool = false,
        description: String? = nil
    ) -> JSONSchema {
        var props = JSONObject()
        for (name, schema) in properties { props[name] = schema.value }
        return object(properties: props, required: required ?? props.keys, additionalProperties, description)
    }

    private static func object(
        properties: JSONObject,
        required: [String],
        _ additionalProperties: Bool,
        _ description: String?
    ) -> JSONSchema {
        var object: JSONObject = [
            "type": "object",
            "properties": .object(properties),
            "required": .array(required.map { .string($0) }),
            "additionalProperties": .bool(additionalProperties),
        ]
        object["description"] = description.map { .string($0) }
        return JSONSchema(trusted: .object(object))
    }

    /// A value matching at least one of `schemas`.
    public static func anyOf(_ schemas: [JSONSchema], description: String? = nil) -> JSONSchema {
        var object: JSONObject = ["anyOf": .array(schemas.map(\.value))]
        object["description"] = description.map { .string($0) }
        return JSONSchema(trusted: .object(object))
    }

    /// `schema` or `null`.
    public static func nullable(_ schema: JSONSchema) -> JSONSchema {
        anyOf([schema, .null])
    }

    /// A reference to a definition in the root's `$defs`, for recursive schemas.
    public static func reference(_ definition: String) -> JSONSchema {
        JSONSchema(trusted: ["$ref": .string("#/$defs/\(definition)")])
    }

    /// This schema with `definitions` under `$defs`, the targets of ``reference(_:)``.
    public func withDefinitions(_ definitions: KeyValuePairs<String, JSONSchema>) -> JSONSchema {
        guard case .object(var object) = value else { return self }
        var defs = object["$defs"]?.objectValue ?? JSONObject()
        for (name, schema) in definitions { defs[name] = schema.value }
        object["$defs"] = .object(defs)
        return JSONSchema(trusted: .object(object))
    }
}
