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

    /// What the model is told about the schema; `.compact` by default.
    public var schemaInPrompt: SchemaPrompt
    /// Objects that do not say `additionalProperties` allow no other members (as OpenAI's
    /// strict mode). Off, they follow JSON Schema: other members are allowed.
    public var strict: Bool
    /// Keywords the SDK cannot enforce are reported in the result instead of failing the
    /// request with `.unsupportedSchema`.
    public var bestEffort: Bool

    /// Creates options; the defaults suit most schemas.
    public init(schemaInPrompt: SchemaPrompt = .compact, strict: Bool = false, bestEffort: Bool = false) {
        self.schemaInPrompt = schemaInPrompt
        self.strict = strict
        self.bestEffort = bestEffort
    }
}
