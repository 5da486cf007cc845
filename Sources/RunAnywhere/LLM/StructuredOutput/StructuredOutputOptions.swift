/// How structured output is produced and checked, beyond the generation options.
///
/// ```swift
/// let options = StructuredOutputOptions(schemaInPrompt: .full, strict: true)
/// ```
public struct StructuredOutputOptions: Sendable, Codable, Equatable {
    /// What the model is told about the schema. The grammar enforces the schema either
    /// way; telling the model helps it choose good values, not valid ones.
    public enum SchemaPrompt: String, Sendable, Codable, CaseIterable {
        /// Nothing: only the grammar.
        case none
        /// A short, type-annotated outline of the expected JSON in the system prompt.
        case compact
        /// The schema's JSON text in the system prompt.
        case full
    }

    /// What the model is told about the schema; `.none` by default.
    ///
    /// Measured with `runanywhere bench tools --schema-prompts` (48 requests, each filling
    /// one tool's arguments; SmolLM2-135M, greedy): every output was valid in all three
    /// styles, and the values were right for 69% of the requests with `.none`, 58% with
    /// `.compact` and 46% with `.full`. A tiny model copies the schema text instead of the
    /// request's values; the grammar already writes the keys for it. Larger models may
    /// profit from `.compact`.
    public var schemaInPrompt: SchemaPrompt
    /// Objects that do not say `additionalProperties` allow no other members (as OpenAI's
    /// strict mode). Off, they follow JSON Schema: other members are allowed.
    public var strict: Bool
    /// Keywords the SDK cannot enforce are reported in the result instead of failing the
    /// request with `.unsupportedSchema`.
    public var bestEffort: Bool

    /// Creates options; the defaults suit most schemas.
    public init(schemaInPrompt: SchemaPrompt = .none, strict: Bool = false, bestEffort: Bool = false) {
        self.schemaInPrompt = schemaInPrompt
        self.strict = strict
        self.bestEffort = bestEffort
    }
}

extension StructuredOutputOptions {
    /// The original SDK's factory, whose options also carry the schema: `schema` goes with
    /// the options into ``RunAnywhereSDK/generateWithStructuredOutput(prompt:structuredOutput:options:)``,
    /// and `includeSchemaInPrompt` writes it in full into the prompt.
    public static func defaults(
        schema: JSONSchema,
        includeSchemaInPrompt: Bool = true,
        strict: Bool = false
    ) -> StructuredOutputConfig {
        StructuredOutputConfig(
            schema: schema,
            options: StructuredOutputOptions(schemaInPrompt: includeSchemaInPrompt ? .full : .none, strict: strict)
        )
    }
}

/// A schema and its options together: the original SDK's structured-output configuration.
public struct StructuredOutputConfig: Sendable, Codable, Equatable {
    /// The schema the output must satisfy.
    public var schema: JSONSchema
    /// How the schema is enforced and shown.
    public var options: StructuredOutputOptions

    /// A configuration.
    public init(schema: JSONSchema, options: StructuredOutputOptions = StructuredOutputOptions()) {
        self.schema = schema
        self.options = options
    }
}

// The original SDK's options carry the schema; here that is a configuration, read by the
// original's names.
extension StructuredOutputConfig {
    /// The original SDK's factory, so `structuredOutput: .defaults(schema:)` reads as there:
    /// the same as ``StructuredOutputOptions/defaults(schema:includeSchemaInPrompt:strict:)``.
    public static func defaults(
        schema: JSONSchema,
        includeSchemaInPrompt: Bool = true,
        strict: Bool = false
    ) -> StructuredOutputConfig {
        StructuredOutputOptions.defaults(schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, strict: strict)
    }

    /// Whether the schema is written into the prompt (in full or as an outline).
    public var includeSchemaInPrompt: Bool { options.schemaInPrompt != .none }

    /// The original SDK's name for the options' ``StructuredOutputOptions/strict``.
    public var strictMode: Bool { options.strict }

    /// The schema's JSON text.
    public var jsonSchema: String { schema.jsonSchemaString }
}
