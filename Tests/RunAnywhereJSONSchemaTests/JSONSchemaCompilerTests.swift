import RunAnywhereGBNF
import RunAnywhereJSON
import RunAnywhereJSONSchema
import Testing

/// A schema from JSON text, through the module's own entry point.
private func schema(_ text: String) throws -> JSONSchema {
    try JSONSchema(checkingText: text)
}

@Suite("The JSON Schema module on its own")
struct JSONSchemaCompilerTests {
    @Test("A compiled grammar parses as llama.cpp reads it, and every text it writes validates")
    func compileParseSampleValidate() throws {
        let person = try schema(
            #"""
            {"type": "object", "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 12},
                "age": {"type": "integer", "minimum": 0, "maximum": 150},
                "mood": {"enum": ["calm", "busy"]},
                "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]{2,5}$"}, "maxItems": 3}
            }, "required": ["name", "age", "mood"], "additionalProperties": false}
            """#
        )
        var compiler = JSONSchemaConverter(schema: person, options: JSONSchemaCompilerOptions())
        let grammar = try GBNFGrammar(parsing: try compiler.convert())
        let generator = try GBNFGenerator(grammar)
        // Any text of the grammar must validate, so any generator will do; a failure prints its text.
        var random = SystemRandomNumberGenerator()
        for _ in 0..<40 {
            let sample = generator.generate(budget: 200, using: &random)
            #expect(sample.isComplete)
            let value = try JSONParser.parse(sample.text)
            #expect(person.validate(value).isEmpty, "\(sample.text)")
        }
    }

    @Test("A keyword the grammar cannot enforce is refused by name, or left out and listed with best effort")
    func unsupportedKeywords() throws {
        let sorted = try schema(#"{"type": "array", "items": {"type": "integer"}, "uniqueItems": true}"#)
        var strict = JSONSchemaConverter(schema: sorted, options: JSONSchemaCompilerOptions())
        let error = #expect(throws: JSONSchemaError.self) { try strict.convert() }
        #expect(error?.kind == .unsupportedSchema)
        #expect(error?.message.contains("uniqueItems") == true, "\(error?.message ?? "")")
        var lenient = JSONSchemaConverter(schema: sorted, options: JSONSchemaCompilerOptions(bestEffort: true))
        _ = try lenient.convert()
        #expect(lenient.unenforced.map(\.keyword) == ["uniqueItems"])
    }

    @Test("What is not a schema is invalidSchema: a number, text that is not JSON, a $ref to nothing")
    func invalidSchemas() throws {
        #expect((#expect(throws: JSONSchemaError.self) { try schema("42") })?.kind == .invalidSchema)
        let broken = #expect(throws: JSONSchemaError.self) { try schema(#"{"type": }"#) }
        #expect(broken?.kind == .invalidSchema)
        #expect(broken?.message.contains("line 1, column 10") == true, "\(broken?.message ?? "")")
        var dangling = JSONSchemaConverter(schema: try schema(##"{"$ref": "#/$defs/none"}"##), options: .init())
        #expect((#expect(throws: JSONSchemaError.self) { try dangling.convert() })?.kind == .invalidSchema)
    }

    @Test("The validator names the keyword and the place of each violation")
    func violations() throws {
        let limits = try schema(
            #"{"type": "object", "properties": {"n": {"type": "integer", "maximum": 3}}, "required": ["n"]}"#
        )
        #expect(limits.validate(try JSONParser.parse(#"{"n": 2}"#)).isEmpty)
        let tooBig = limits.validate(try JSONParser.parse(#"{"n": 9}"#))
        #expect(tooBig.map(\.keyword) == ["maximum"])
        #expect(tooBig.map(\.instancePointer) == ["/n"])
        #expect(limits.validate(try JSONParser.parse("{}")).map(\.keyword) == ["required"])
    }
}
