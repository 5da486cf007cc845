/// Whether a structured output is a valid instance of its schema, and if not, why.
public struct StructuredOutputValidation: Sendable, Codable, Equatable {
    /// The output parsed as JSON and satisfied every keyword of the schema.
    public var isValid: Bool
    /// The output parsed as JSON.
    public var containsJSON: Bool
    /// The keywords the parsed output violates (empty when valid or not JSON).
    public var violations: [JSONSchemaViolation]
    /// Why the output is not valid, in one sentence; `nil` when it is.
    public var errorMessage: String?

    /// Creates a validation outcome.
    public init(
        isValid: Bool,
        containsJSON: Bool,
        violations: [JSONSchemaViolation] = [],
        errorMessage: String? = nil
    ) {
        self.isValid = isValid
        self.containsJSON = containsJSON
        self.violations = violations
        self.errorMessage = errorMessage
    }

    enum CodingKeys: String, CodingKey {
        case isValid = "is_valid"
        case containsJSON = "contains_json"
        case violations
        case errorMessage = "error_message"
    }
}

extension StructuredOutputValidation {
    /// The original SDK's initializer, its fields defaulting as the original's do (no JSON,
    /// no message). The output itself is the result's text here, so `rawOutput` is not stored.
    public init(isValid: Bool, containsJson: Bool = false, errorMessage: String? = nil, rawOutput: String? = nil) {
        self.init(isValid: isValid, containsJSON: containsJson, errorMessage: errorMessage)
    }

    /// The original SDK's name for ``containsJSON``.
    public var containsJson: Bool { containsJSON }
}
