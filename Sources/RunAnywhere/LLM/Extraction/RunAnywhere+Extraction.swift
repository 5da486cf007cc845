#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension RunAnywhere {
    /// Finds the JSON value in free model text and checks it against `schema`: the contents of
    /// a fenced code block (a block opened with three backticks and `json`) first, then the whole text, then objects and
    /// arrays written bare in it; the first value valid against the schema wins. Nothing is
    /// generated: this parses text that is already there.
    ///
    /// ```swift
    /// let schema = JSONSchema.object(["city": .string()], required: ["city"])
    /// let found = try RunAnywhere.extractStructuredOutput(
    ///     from: "Sure! Here it is:\n```json\n{\"city\": \"Paris\"}\n```", schema: schema)
    /// print(found.value["city"]?.stringValue ?? "")   // Paris
    /// ```
    ///
    /// - Throws: `.invalidStructuredOutput` when the text holds no JSON value, or none valid
    ///   against the schema (the message names the first one's violations).
    public static func extractStructuredOutput(
        from text: String,
        schema: JSONSchema
    ) throws(SDKException) -> ExtractedStructuredOutput {
        try ExtractedStructuredOutput.extract(from: text, schema: schema)
    }

    /// ``extractStructuredOutput(from:schema:)`` under the original SDK's label.
    public static func extractStructuredOutput(
        text: String,
        schema: JSONSchema
    ) throws(SDKException) -> ExtractedStructuredOutput {
        try ExtractedStructuredOutput.extract(from: text, schema: schema)
    }

    /// Finds named entities in `text` with the loaded language model.
    ///
    /// Calls ``RunAnywhereSDK/extractEntities(from:types:options:)`` on the shared instance.
    public static func extractEntities(
        from text: String,
        types: [String] = NamedEntity.defaultTypes,
        options: LLMGenerationOptions = LLMGenerationOptions(maxTokens: 256, temperature: 0)
    ) async throws(SDKException) -> [NamedEntity] {
        try await sdk().extractEntities(from: text, types: types, options: options)
    }
}

extension NamedEntity {
    /// The types asked for when none are given.
    public static let defaultTypes = ["person", "organization", "location", "date"]

    /// The longest text ``RunAnywhereSDK/extractEntities(from:types:options:)`` takes, in characters.
    public static let maximumTextLength = 4_000

    /// A worked example for the prompt: a sentence and its answer, with the entities of the
    /// requested types among those it has.
    static func example(types: [String]) -> (text: String, answer: String, known: [(String, String)]) {
        let text = "Anna Berg joined Nordic Bank in Oslo on 4 May 2019."
        let known = [
            ("Anna Berg", "person"), ("Nordic Bank", "organization"), ("Oslo", "location"), ("4 May 2019", "date"),
        ].filter { types.contains($0.1) }
        let items = known.map { #"{"text": "\#($0.0)", "type": "\#($0.1)"}"# }
        return (text, #"{"entities": [\#(items.joined(separator: ", "))]}"#, known)
    }
}

extension RunAnywhereSDK {
    /// Finds the JSON value in free model text and checks it against `schema`.
    ///
    /// The same as ``RunAnywhere/extractStructuredOutput(from:schema:)``.
    public func extractStructuredOutput(
        from text: String,
        schema: JSONSchema
    ) throws(SDKException) -> ExtractedStructuredOutput {
        try ExtractedStructuredOutput.extract(from: text, schema: schema)
    }

    /// ``extractStructuredOutput(from:schema:)`` under the original SDK's label.
    public func extractStructuredOutput(
        text: String,
        schema: JSONSchema
    ) throws(SDKException) -> ExtractedStructuredOutput {
        try ExtractedStructuredOutput.extract(from: text, schema: schema)
    }

    /// Finds named entities of the given types in `text` with the loaded language model.
    ///
    /// The model lists each entity's text and type under a grammar (so every type is one of
    /// `types`); each is then placed at its occurrence in `text`, and one the text does not
    /// contain (changed or invented) is dropped, so every offset is checked against the input.
    /// The confidence is the model's probability of the type it gave against the other types,
    /// scored on the span in context.
    ///
    /// ```swift
    /// let entities = try await sdk.extractEntities(from: "Ada Lovelace was born in London.",
    ///                                              types: ["person", "location"])
    /// for entity in entities { print(entity.text, entity.entityType, entity.startOffset) }
    /// ```
    ///
    /// - Throws: `.emptyText` for blank text; `.invalidInput` for text over
    ///   ``NamedEntity/maximumTextLength`` characters, no types, or a blank or repeated type;
    ///   `.modelNotLoaded` without a language model; generation errors.
    public func extractEntities(
        from text: String,
        types: [String] = NamedEntity.defaultTypes,
        options: LLMGenerationOptions = LLMGenerationOptions(maxTokens: 256, temperature: 0)
    ) async throws(SDKException) -> [NamedEntity] {
        guard !text.trimmed().isEmpty else {
            throw SDKException(.emptyText, "The text to find entities in is empty")
        }
        guard text.count <= NamedEntity.maximumTextLength else {
            throw SDKException(
                .invalidInput,
                "The text has \(text.count) characters; at most \(NamedEntity.maximumTextLength) are taken",
                recovery: "Split it into paragraphs"
            )
        }
        let cleaned = types.map { $0.trimmed() }
        guard !cleaned.isEmpty, !cleaned.contains(where: \.isEmpty), Set(cleaned).count == cleaned.count else {
            throw SDKException(.invalidInput, "Entity types must be a non-empty list of distinct names (got \(types))")
        }
        let schema = JSONSchema.object(
            [
                "entities": .array(
                    of: .object(
                        [
                            "text": .string(minLength: 1, maxLength: min(text.count, 200)),
                            "type": .enumeration(cleaned),
                        ],
                        required: ["text", "type"]
                    ),
                    maxItems: 32
                )
            ],
            required: ["entities"]
        )
        // One worked example: small models copy its shape (short spans, one per entity) far
        // better than they follow the instruction alone.
        let example = NamedEntity.example(types: cleaned)
        let prompt = [
            ChatMessage(
                role: .system,
                content: "You find named entities. List every entity of these types in the text: "
                    + cleaned.joined(separator: ", ") + ". Copy each entity exactly as the text writes it: "
                    + "a name, place or date, never a whole sentence."
            ),
            ChatMessage(role: .user, content: example.text),
            ChatMessage(role: .assistant, content: example.answer),
            ChatMessage(role: .user, content: text),
        ]
        let result = try await generateStructured(messages: prompt, schema: schema, options: options)
        guard case .array(let items)? = result.value?["entities"] else {
            throw SDKException(
                .invalidStructuredOutput,
                result.validation.errorMessage ?? "The model wrote no entity list",
                recovery: "Give the generation more tokens (maxTokens)"
            )
        }
        let spans = items.compactMap { item -> (text: String, type: String)? in
            guard let span = item["text"]?.stringValue, let type = item["type"]?.stringValue else { return nil }
            return (span, type)
        }
        var entities: [NamedEntity] = []
        for (entity, _) in NamedEntity.locate(spans, in: text) {
            var scored = entity
            scored.confidence = try await typeConfidence(of: entity, in: text, types: cleaned)
            entities.append(scored)
        }
        return entities.sorted { ($0.startOffset, $0.endOffset) < ($1.startOffset, $1.endOffset) }
    }

    /// The model's probability of `entity`'s type among `types`, for the span in context.
    private func typeConfidence(
        of entity: NamedEntity,
        in text: String,
        types: [String]
    ) async throws(SDKException)
        -> Double
    {
        // Worked examples of every type first, so no type is favoured for being named first.
        let examples = NamedEntity.example(types: types).known.map {
            "In \"\(NamedEntity.example(types: types).text)\", \"\($0.0)\" is a \($0.1)."
        }
        let prompt = examples.joined(separator: "\n") + "\nIn \"\(text)\", \"\(entity.text)\" is a"
        let scores: [Double]
        do {
            scores = try await runtime().llm.loadedService().logLikelihoods(of: types.map { " " + $0 }, after: prompt)
        } catch let error as SDKException {
            throw error
        } catch {
            throw SDKException(.generationFailed, "Scoring the entity types failed", underlying: error)
        }
        guard let index = types.firstIndex(of: entity.entityType), scores.count == types.count else { return 0 }
        let top = scores.max() ?? 0
        let weights = scores.map { exp($0 - top) }
        return weights[index] / weights.reduce(0, +)
    }
}
