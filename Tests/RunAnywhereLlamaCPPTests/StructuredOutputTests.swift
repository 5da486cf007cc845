import Foundation
import RealEngineTestSupport
import RunAnywhereTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Structured output on llama.cpp", .serialized, .wholeMachine, .tags(.realEngine))
struct StructuredOutputTests {
    /// Schemas of the shapes apps send: nested objects, arrays of objects, enums, dates,
    /// optional fields, bounds, a pattern, and recursion.
    static let schemas: [(name: String, prompt: String, schema: String)] = [
        (
            "contact card", "Make a contact card for Ada Lovelace, born 1815-12-10, a mathematician.",
            #"""
            {"type": "object", "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 40},
                "birth_date": {"type": "string", "format": "date"},
                "occupation": {"type": "string"},
                "email": {"type": "string", "format": "email"}},
             "required": ["name", "birth_date"], "additionalProperties": false}
            """#
        ),
        (
            "order with line items", "An order of two books and a pen.",
            #"""
            {"type": "object", "properties": {
                "order_id": {"type": "string", "pattern": "^ORD-[0-9]{4}$"},
                "status": {"enum": ["pending", "shipped", "delivered"]},
                "items": {"type": "array", "minItems": 1, "maxItems": 4, "items": {
                    "type": "object", "properties": {
                        "product": {"type": "string", "maxLength": 30},
                        "quantity": {"type": "integer", "minimum": 1, "maximum": 10},
                        "price": {"type": "number", "minimum": 0}},
                    "required": ["product", "quantity", "price"], "additionalProperties": false}}},
             "required": ["order_id", "status", "items"], "additionalProperties": false}
            """#
        ),
        (
            "sentiment classification", "Classify: 'The food was cold and the waiter was rude.'",
            #"""
            {"type": "object", "properties": {
                "sentiment": {"type": "string", "enum": ["positive", "negative", "neutral"]},
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                "topics": {"type": "array", "items": {"type": "string", "maxLength": 20}, "maxItems": 3}},
             "required": ["sentiment", "confidence"], "additionalProperties": false}
            """#
        ),
        (
            "recursive tree", "A small folder tree with a docs folder inside a project folder.",
            #"""
            {"$defs": {"node": {"type": "object", "properties": {
                "name": {"type": "string", "maxLength": 16},
                "children": {"type": "array", "maxItems": 2, "items": {"$ref": "#/$defs/node"}}},
              "required": ["name"], "additionalProperties": false}},
             "$ref": "#/$defs/node"}
            """#
        ),
        (
            "event with nullable and time", "A meeting at 09:30:00 with no location yet.",
            #"""
            {"type": "object", "properties": {
                "title": {"type": "string", "minLength": 3, "maxLength": 30},
                "start": {"type": "string", "format": "time"},
                "location": {"type": ["string", "null"], "maxLength": 20},
                "attendees": {"type": "integer", "minimum": 1, "maximum": 50}},
             "required": ["title", "start", "location", "attendees"], "additionalProperties": false}
            """#
        ),
    ]

    @Test(
        "Real-world schemas give valid instances at several seeds, checked by the Swift validator, on both model families",
        arguments: SecondFamilyTests.families
    )
    func realWorldSchemas(model: String) async throws {
        try await withSDK(models: [model]) { sdk in
            try await SecondFamilyTests.load(model, in: sdk)
            for entry in Self.schemas {
                let schema = try JSONSchema(parsing: entry.schema)
                for seed in UInt32(1)...2 {
                    let options = LLMGenerationOptions.tuned(maxTokens: 200, temperature: 0.7, seed: seed)
                    let result = try await sdk.generateStructured(entry.prompt, schema: schema, options: options)
                    #expect(result.isValid, "\(model) \(entry.name), seed \(seed): \(result.validation) \(result.text)")
                    let value = try #require(result.value, "\(entry.name): \(result.text)")
                    #expect(schema.validate(value).isEmpty)
                    #expect(result.generation.finishReason == .stop)
                }
            }
        }
    }

    struct Movie: Generable, Equatable {
        var title: String
        var year: Int
        var genres: [String]
        var rating: Double?

        static var generationSchema: JSONSchema {
            .object(
                [
                    "title": .string(minLength: 1, maxLength: 40),
                    "year": .integer(minimum: 1900, maximum: 2030),
                    "genres": .array(of: .string(maxLength: 15), minItems: 1, maxItems: 3),
                    "rating": .number(minimum: 0, maximum: 10),
                ],
                required: ["title", "year", "genres"]
            )
        }
    }

    @Test("generate(as:) returns a decoded Generable value within its bounds")
    func generableValue() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(DefaultModels.llmId)
            let movie = try await sdk.generate(
                "Describe the film Jurassic Park.",
                as: Movie.self,
                options: LLMGenerationOptions(maxTokens: 120, temperature: 0)
            )
            #expect(!movie.title.isEmpty)
            #expect((1900...2030).contains(movie.year))
            #expect((1...3).contains(movie.genres.count))
        }
    }

    @Test("The stream grows the JSON text token by token and ends with the validated result")
    func streaming() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(DefaultModels.llmId)
            let schema = JSONSchema.object(["city": .string(maxLength: 20), "country": .string(maxLength: 20)])
            var partials: [String] = []
            var final: StructuredOutputResult?
            let stream = try await sdk.generateStructuredStream(
                "The capital of France.",
                schema: schema,
                options: LLMGenerationOptions(maxTokens: 60, temperature: 0)
            )
            for try await event in stream {
                switch event {
                case .partial(let text): partials.append(text)
                case .completed(let result): final = result
                }
            }
            let result = try #require(final)
            #expect(result.isValid, "\(result.text)")
            #expect(partials.count >= 3)
            #expect(zip(partials, partials.dropFirst()).allSatisfy { $1.hasPrefix($0) })
            #expect(partials.last?.trimmingCharacters(in: .whitespacesAndNewlines) == result.text)
        }
    }

    @Test("Running out of tokens mid-JSON returns the partial text as not valid, and generate(as:) throws")
    func tooFewTokens() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(DefaultModels.llmId)
            let options = LLMGenerationOptions(maxTokens: 5, temperature: 0)
            let result = try await sdk.generateStructured(
                "Describe the film Jurassic Park.",
                schema: Movie.generationSchema,
                options: options
            )
            #expect(!result.isValid)
            #expect(result.value == nil)
            #expect(result.generation.finishReason == .length)
            #expect(result.text.hasPrefix("{"))
            #expect(result.validation.errorMessage?.contains("maxTokens") == true)
            await expectCode(.invalidStructuredOutput) {
                try await sdk.generate("Describe the film Jurassic Park.", as: Movie.self, options: options)
            }
        }
    }

    @Test("Unsupported and invalid schemas fail before any token, naming the keyword and where it is")
    func badSchemas() async throws {
        try await withSDK { sdk in
            try await sdk.loadModel(DefaultModels.llmId)
            let unsupported = try JSONSchema(
                parsing: #"{"type": "object", "properties": {"tags": {"type": "array", "uniqueItems": true}}}"#
            )
            do {
                _ = try await sdk.generateStructured("x", schema: unsupported)
                Issue.record("expected unsupportedSchema")
            } catch let error as SDKException {
                #expect(error.code == .unsupportedSchema)
                #expect(error.message.contains("uniqueItems") && error.message.contains("/properties/tags"))
            }
            let bestEffort = try await sdk.generateStructured(
                "Three tags about cats.",
                schema: unsupported,
                options: LLMGenerationOptions(maxTokens: 80, temperature: 0),
                structuredOptions: StructuredOutputOptions(bestEffort: true)
            )
            #expect(bestEffort.unenforced.contains { $0.keyword == "uniqueItems" })
            let invalid = [
                ##"{"$ref": "#/$defs/missing"}"##,
                ##"{"enum": []}"##,
                ##"{"$defs": {"a": {"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}}, "required": ["x"]}}, "$ref": "#/$defs/a"}"##,
            ]
            for text in invalid {
                await expectCode(.invalidSchema) {
                    try await sdk.generateStructured("x", schema: try JSONSchema(parsing: text))
                }
            }
            await expectCode(.invalidInput) {
                try await sdk.generateStructured(
                    "x",
                    schema: .object(["a": .string()]),
                    options: LLMGenerationOptions(grammar: LLMGrammar(#"root ::= "a""#))
                )
            }
        }
    }
}
