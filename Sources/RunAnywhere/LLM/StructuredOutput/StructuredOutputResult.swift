import RunAnywhereJSON

/// A structured generation: the JSON the model wrote, its parsed value, whether it is valid
/// against the schema, and the generation's metrics.
///
/// A result that is not valid (the model ran out of tokens, or was cancelled) keeps the
/// partial text in ``text`` and says why in ``validation``; ``value`` is then `nil`.
public struct StructuredOutputResult: Sendable, Codable, Equatable {
    /// The JSON text as generated.
    public var text: String
    /// The parsed instance, when the output is valid.
    public var value: JSONValue?
    /// Whether the output is valid, and the violations if not.
    public var validation: StructuredOutputValidation
    /// Schema keywords that were not enforced (only with ``StructuredOutputOptions/bestEffort``).
    public var unenforced: [JSONSchemaKeywordLocation]
    /// The generation underneath: tokens, speed, finish reason.
    public var generation: LLMGenerationResult

    /// Whether the output is a valid instance of the schema.
    public var isValid: Bool { validation.isValid }

    /// Creates a result; `generateStructured` makes these.
    public init(
        text: String,
        value: JSONValue?,
        validation: StructuredOutputValidation,
        unenforced: [JSONSchemaKeywordLocation],
        generation: LLMGenerationResult
    ) {
        self.text = text
        self.value = value
        self.validation = validation
        self.unenforced = unenforced
        self.generation = generation
    }

    enum CodingKeys: String, CodingKey {
        case text
        case value = "output"
        case validation
        case unenforced = "unenforced_keywords"
        case generation
    }
}

extension StructuredOutputResult {
    /// The original SDK's name for ``isValid``.
    public var success: Bool { isValid }
}
