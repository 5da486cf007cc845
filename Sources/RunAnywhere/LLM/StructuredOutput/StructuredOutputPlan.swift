import RunAnywhereJSON

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One structured request, prepared: the schema compiled to a grammar, the schema's outline
/// in the system prompt, and the rules that judge the output.
struct StructuredOutputPlan: Sendable {
    let schema: JSONSchema
    let compiled: JSONSchemaGrammar
    let structured: StructuredOutputOptions
    /// The caller's options with the grammar and the schema instruction added.
    let options: LLMGenerationOptions

    /// - Throws: `.invalidSchema`, `.unsupportedSchema`, or `.invalidInput` when the options
    ///   already carry a grammar (one output cannot follow two).
    init(
        schema: JSONSchema,
        options: LLMGenerationOptions,
        structured: StructuredOutputOptions
    ) throws(SDKException) {
        guard options.grammar == nil else {
            throw SDKException(
                .invalidInput,
                "Both a grammar and a schema were given",
                recovery: "Pass the schema alone; it is compiled to a grammar"
            )
        }
        try options.validate()
        self.schema = schema
        self.structured = structured
        self.compiled = try JSONSchemaGrammar(
            schema,
            options: JSONSchemaGrammar.Options(strictObjects: structured.strict, bestEffort: structured.bestEffort)
        )
        var options = options
        options.grammar = compiled.grammar
        options.responseSchema = schema
        if let instruction = JSONSchemaOutline.instruction(for: schema, style: structured.schemaInPrompt) {
            let system = options.systemPrompt.map { $0.trimmed() } ?? ""
            options.systemPrompt = system.isEmpty ? instruction : system + "\n\n" + instruction
        }
        self.options = options
    }

    /// Judges the generated text: parsed, validated against the schema in Swift, and never
    /// called valid when the generation ended before the JSON did.
    func finish(_ generation: LLMGenerationResult) -> StructuredOutputResult {
        let text = generation.text.trimmed()
        let validation: StructuredOutputValidation
        var value: JSONValue?
        do {
            let parsed = try JSONValue(parsing: text)
            let violations = schema.validate(parsed, strictObjects: structured.strict)
            if violations.isEmpty {
                value = parsed
                validation = StructuredOutputValidation(isValid: true, containsJSON: true)
            } else {
                validation = StructuredOutputValidation(
                    isValid: false,
                    containsJSON: true,
                    violations: violations,
                    errorMessage: "The output violates the schema: \(violations[0])"
                )
            }
        } catch {
            let message =
                switch generation.finishReason {
                case .length:
                    "The output ended before the JSON was complete: maxTokens (\(options.maxTokens)) ran out"
                case .contextFull:
                    "The output ended before the JSON was complete: the context is full"
                case .cancelled:
                    "The generation was cancelled before the JSON was complete"
                case .stopSequence:
                    "A stop sequence ended the output before the JSON was complete"
                case .stop:
                    "The output is not JSON: \(error.message)"
                }
            validation = StructuredOutputValidation(isValid: false, containsJSON: false, errorMessage: message)
        }
        return StructuredOutputResult(
            text: text,
            value: value,
            validation: validation,
            unenforced: compiled.unenforced,
            generation: generation
        )
    }
}
