import Foundation
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("JSON Schema validation")
struct JSONSchemaValidatorTests {
    private func violations(_ schema: String, _ instance: String, strict: Bool = false) throws -> [JSONSchemaViolation]
    {
        try JSONSchema(parsing: schema).validate(JSONValue(parsing: instance), strictObjects: strict)
    }

    private func isValid(_ schema: String, _ instance: String, strict: Bool = false) throws -> Bool {
        try violations(schema, instance, strict: strict).isEmpty
    }

    @Test("type: integer accepts 1.0 but not 1.5, number accepts integers, and a type list any of them")
    func types() throws {
        #expect(try isValid(##"{"type":"integer"}"##, "1.0"))
        #expect(try !isValid(##"{"type":"integer"}"##, "1.5"))
        #expect(try isValid(##"{"type":"number"}"##, "7"))
        #expect(try isValid(##"{"type":["string","null"]}"##, "null"))
        let found = try violations(##"{"type":["string","null"]}"##, "[]")
        #expect(
            found == [
                JSONSchemaViolation(
                    instancePointer: "",
                    keyword: "type",
                    message: "expected a string or a null, found an array"
                )
            ]
        )
    }

    @Test("enum and const compare numbers by value and objects whatever their member order")
    func constants() throws {
        #expect(try isValid(##"{"enum":[1,"a"]}"##, "1.0"))
        #expect(try isValid(##"{"const":{"a":1,"b":[2.0]}}"##, ##"{"b":[2],"a":1}"##))
        #expect(try !isValid(##"{"const":{"a":1}}"##, ##"{"a":1,"b":2}"##))
        #expect(try !isValid(##"{"enum":["a","b"]}"##, ##""c""##))
        #expect(try violations(##"{"const":"x"}"##, ##""y""##).first?.keyword == "const")
    }

    @Test("Objects check properties, required and additionalProperties, reporting each member's pointer")
    func objects() throws {
        let schema = ##"""
            {"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},
             "required":["name","age"],"additionalProperties":false}
            """##
        let found = try violations(schema, ##"{"age":-1,"extra":true}"##)
        #expect(found.map(\.keyword).sorted() == ["additionalProperties", "minimum", "required"])
        #expect(found.first { $0.keyword == "minimum" }?.instancePointer == "/age")
        #expect(found.first { $0.keyword == "additionalProperties" }?.instancePointer == "/extra")
        #expect(try isValid(##"{"additionalProperties":{"type":"integer"}}"##, ##"{"a":1,"b":2}"##))
        #expect(try !isValid(##"{"additionalProperties":{"type":"integer"}}"##, ##"{"a":"x"}"##))
    }

    @Test("Without additionalProperties extra members are allowed, unless strictObjects is asked for")
    func strictObjects() throws {
        let schema = ##"{"type":"object","properties":{"a":{}}}"##
        #expect(try isValid(schema, ##"{"a":1,"b":2}"##))
        let strict = try violations(schema, ##"{"a":1,"b":2}"##, strict: true)
        #expect(
            strict == [
                JSONSchemaViolation(
                    instancePointer: "/b",
                    keyword: "additionalProperties",
                    message: "the member \"b\" is not allowed"
                )
            ]
        )
        #expect(
            try isValid(##"{"type":"array"}"##, "[{\"any\":1}]", strict: true),
            "a schema that is not about objects stays open"
        )
        let converted = try JSONSchemaGrammar(JSONSchema(parsing: schema), options: .init(strictObjects: true))
        #expect(converted.validate(try JSONValue(parsing: ##"{"a":1,"b":2}"##)).count == 1)
    }

    @Test("Arrays check items, tuples, counts, uniqueness and contains")
    func arrays() throws {
        #expect(try isValid(##"{"items":{"type":"integer"},"minItems":1,"maxItems":3}"##, "[1,2]"))
        #expect(try violations(##"{"items":{"type":"integer"}}"##, ##"[1,"x"]"##).first?.instancePointer == "/1")
        #expect(try !isValid(##"{"maxItems":1}"##, "[1,2]"))
        #expect(try isValid(##"{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}"##, ##"["a",1,2]"##))
        #expect(try !isValid(##"{"prefixItems":[{"type":"string"}],"items":false}"##, ##"["a",1]"##))
        #expect(try isValid(##"{"prefixItems":[{"type":"string"}]}"##, ##"["a",{}]"##), "a tuple without items is open")
        #expect(try isValid(##"{"items":[{"type":"string"}],"additionalItems":{"type":"null"}}"##, ##"["a",null]"##))
        #expect(try !isValid(##"{"items":[{"type":"string"}],"additionalItems":{"type":"null"}}"##, ##"["a",1]"##))
        #expect(
            try !isValid(##"{"prefixItems":{"type":"string"}}"##, "[1]"),
            "a schema-valued prefixItems reads as items"
        )
        #expect(try !isValid(##"{"uniqueItems":true}"##, ##"[1,{"a":2},1.0]"##))
        #expect(try isValid(##"{"uniqueItems":true}"##, ##"[1,"1",[1]]"##))
        #expect(try !isValid(##"{"contains":{"type":"null"}}"##, "[1,2]"))
        #expect(try !isValid(##"{"contains":{"type":"null"},"maxContains":1}"##, "[null,null]"))
    }

    @Test("String lengths count Unicode scalars, as JSON Schema counts code points")
    func stringLengths() throws {
        #expect(try isValid(##"{"maxLength":1}"##, ##""😀""##))
        #expect(try !isValid(##"{"maxLength":1}"##, "\"e\u{301}\""))
        #expect(try !isValid(##"{"minLength":2}"##, ##""a""##))
        #expect(try isValid(##"{"minLength":2}"##, "3"), "length keywords only apply to strings")
    }

    @Test("pattern searches anywhere unless anchored, with ECMAScript's ASCII \\d and strict $")
    func patterns() throws {
        #expect(try isValid(##"{"pattern":"[0-9]+"}"##, ##""abc 12""##))
        #expect(try !isValid(##"{"pattern":"^[0-9]+$"}"##, ##""abc 12""##))
        #expect(try !isValid(##"{"pattern":"^\\d$"}"##, "\"\u{0663}\""))
        #expect(try !isValid(##"{"pattern":"^abc$"}"##, ##""abc\n""##))
        #expect(try isValid(##"{"pattern":"^a{,2}$"}"##, ##""a{,2}""##), "{,2} is a literal in ECMAScript")
        #expect(
            try isValid(##"{"pattern":"^(?=a)\\w+$"}"##, ##""ab""##),
            "lookahead is checked even though a grammar cannot"
        )
        #expect(try !isValid(##"{"pattern":"^(?=a)\\w+$"}"##, ##""ba""##))
        #expect(try violations(##"{"pattern":"(a"}"##, ##""a""##).first?.keyword == "pattern")
    }

    @Test(
        "Formats are checked for dates, times, UUIDs, e-mail addresses, URIs, host names and IPv4 addresses",
        arguments: [
            ("date", "2024-02-29", true), ("date", "2023-02-29", false), ("date", "2024-1-01", false),
            ("time", "23:59:60Z", true), ("time", "12:00:60Z", false), ("time", "01:29:60+01:30", true),
            ("time", "12:00:00", false), ("time", "12:00:00.123456789-05:00", true),
            ("date-time", "2024-06-01t12:00:00z", true), ("date-time", "2024-06-01 12:00:00Z", false),
            ("uuid", "123E4567-e89b-12d3-a456-426614174000", true),
            ("uuid", "123e4567-e89b-12d3-a456-42661417400", false),
            ("email", "first.last+tag@example.com", true), ("email", "first..last@example.com", false),
            ("email", "user@[192.168.0.1]", true), ("email", "no-at-sign", false),
            ("uri", "urn:isbn:0451450523", true), ("uri", "https://example.com/%zz", false),
            ("uri", "/relative", false),
            ("hostname", "a-b.example", true), ("hostname", "a_b.example", false),
            ("ipv4", "255.255.255.255", true), ("ipv4", "1.2.3.04", false), ("unknown-format", "anything", true),
        ]
    )
    func formats(_ format: String, _ text: String, _ valid: Bool) throws {
        let schema = JSONSchema.string(format: format)
        #expect(schema.validate(.string(text)).isEmpty == valid)
    }

    @Test("Number bounds compare exactly, beyond Double's precision, in both drafts' exclusive forms")
    func numberBounds() throws {
        #expect(try !isValid(##"{"maximum":9223372036854775806}"##, "9223372036854775807"))
        #expect(try isValid(##"{"maximum":9223372036854775807}"##, "9223372036854775807"))
        #expect(try !isValid(##"{"exclusiveMinimum":0.1}"##, "0.1"))
        #expect(try isValid(##"{"exclusiveMinimum":0.1}"##, "0.10000000000000002"))
        #expect(try !isValid(##"{"minimum":5,"exclusiveMinimum":true}"##, "5"))
        #expect(try isValid(##"{"minimum":5,"exclusiveMinimum":false}"##, "5"))
        #expect(try !isValid(##"{"maximum":-1e20}"##, "-99999999999999999"))
        #expect(
            try violations(##"{"maximum":150}"##, "200").first?.description
                == "(root): 200 is above the maximum 150 (maximum)"
        )
    }

    @Test("Keywords a grammar cannot enforce are still validated")
    func unenforcedKeywords() throws {
        #expect(try !isValid(##"{"multipleOf":0.1}"##, "0.35"))
        #expect(try isValid(##"{"multipleOf":0.1}"##, "0.3"))
        #expect(try !isValid(##"{"multipleOf":3}"##, "10"))
        #expect(try !isValid(##"{"not":{"type":"null"}}"##, "null"))
        #expect(try !isValid(##"{"if":{"type":"string"},"then":{"minLength":2},"else":{"type":"null"}}"##, ##""a""##))
        #expect(try !isValid(##"{"if":{"type":"string"},"then":{"minLength":2},"else":{"type":"null"}}"##, "1"))
        #expect(try !isValid(##"{"minProperties":2}"##, ##"{"a":1}"##))
        #expect(try !isValid(##"{"maxProperties":1}"##, ##"{"a":1,"b":2}"##))
        #expect(
            try !isValid(
                ##"{"patternProperties":{"^x":{"type":"integer"}},"additionalProperties":false}"##,
                ##"{"xa":"s"}"##
            )
        )
        #expect(
            try isValid(
                ##"{"patternProperties":{"^x":{"type":"integer"}},"additionalProperties":false}"##,
                ##"{"xa":1}"##
            )
        )
        #expect(try !isValid(##"{"dependentRequired":{"a":["b"]}}"##, ##"{"a":1}"##))
        #expect(try !isValid(##"{"propertyNames":{"maxLength":2}}"##, ##"{"abc":1}"##))
    }

    @Test("anyOf needs one match, oneOf exactly one, allOf all of them")
    func combinators() throws {
        let oneOf = ##"{"oneOf":[{"type":"integer"},{"type":"number","minimum":5}]}"##
        #expect(try isValid(oneOf, "3"))
        #expect(try isValid(oneOf, "5.5"))
        #expect(try violations(oneOf, "7").first?.message.contains("exactly one") == true)
        #expect(try !isValid(##"{"anyOf":[{"type":"string"},{"type":"null"}]}"##, "1"))
        #expect(try !isValid(##"{"allOf":[{"minimum":1},{"maximum":3}]}"##, "4"))
    }

    @Test("Recursive $refs validate deep values, and a $ref loop that makes no progress ends")
    func references() throws {
        let tree = ##"""
            {"$defs":{"node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/node"}},
             "value":{"type":"integer"}},"required":["value"]}},"$ref":"#/$defs/node"}
            """##
        #expect(try isValid(tree, ##"{"value":1,"children":[{"value":2,"children":[{"value":3}]}]}"##))
        let deep = try violations(tree, ##"{"value":1,"children":[{"value":2,"children":[{"value":"x"}]}]}"##)
        #expect(deep.first?.instancePointer == "/children/0/children/0/value")
        #expect(
            try isValid(##"{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}"##, "1")
        )
        #expect(
            try isValid(
                ##"{"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/a"},{"type":"null"}]}},"$ref":"#/$defs/a"}"##,
                "null"
            )
        )
        #expect(try violations(##"{"$ref":"#/$defs/none"}"##, "1").first?.keyword == "$ref")
        #expect(try isValid(##"{"$defs":{"x":{"$anchor":"thing","type":"string"}},"$ref":"#thing"}"##, ##""s""##))
        #expect(
            try isValid(##"{"$ref":"https://example.com/elsewhere.json"}"##, "1"),
            "a remote $ref cannot be followed"
        )
    }

    @Test("Instance pointers escape ~ and / in member names")
    func pointerEscapes() throws {
        let found = try violations(##"{"additionalProperties":{"type":"integer"}}"##, ##"{"a/b~c":"x"}"##)
        #expect(found.first?.instancePointer == "/a~1b~0c")
    }

    @Test("Boolean schemas allow everything or nothing")
    func booleanSchemas() throws {
        #expect(try isValid("true", ##"{"a":[1]}"##))
        #expect(try !isValid("false", "null"))
        #expect(try !isValid(##"{"properties":{"a":false}}"##, ##"{"a":1}"##))
    }

    @Test("Very deep values end in a violation instead of exhausting the stack")
    func deepValues() throws {
        var schema: JSONValue = ["type": "integer"]
        for _ in 0..<1000 { schema = ["items": schema] }
        var instance: JSONValue = 1
        for _ in 0..<1000 { instance = [instance] }
        let found = try JSONSchema(schema).validate(instance)
        #expect(found.count == 1)
        #expect(found.first?.message.contains("nested") == true)
    }

    @Test("Every value generated from the grammar of a varied schema validates, and broken values do not")
    func grammarAndValidatorAgree() throws {
        let schema = try JSONSchema(
            parsing: ##"""
                {"type":"object","additionalProperties":false,"required":["id","when","scores"],
                 "properties":{"id":{"type":"string","format":"uuid"},"when":{"type":"string","format":"date-time"},
                 "scores":{"type":"array","items":{"type":"number","minimum":0,"maximum":10},"minItems":1,"maxItems":3},
                 "label":{"enum":["a","b"]}}}
                """##
        )
        let good = ##"{"id":"123e4567-e89b-12d3-a456-426614174000","when":"2024-06-01T12:00:00Z","scores":[0,9.5]}"##
        #expect(schema.validate(try JSONValue(parsing: good)).isEmpty)
        let bad = ##"{"id":"x","when":"2024-02-30T12:00:00Z","scores":[11],"label":"c","more":1}"##
        let found = schema.validate(try JSONValue(parsing: bad))
        #expect(Set(found.map(\.keyword)) == ["format", "maximum", "enum", "additionalProperties"])
        #expect(Set(found.map(\.instancePointer)) == ["/id", "/when", "/scores/0", "/label", "/more"])
    }
}
