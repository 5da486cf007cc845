import Foundation
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("JSON values")
struct JSONValueTests {
    @Test("Parsing keeps member order and tells integers from decimals")
    func orderAndNumbers() throws {
        let value = try JSONValue(parsing: #"{"z": 1, "a": 1.5, "m": [true, null, "x"], "big": 1e3}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m", "big"])
        #expect(value["z"] == .integer(1))
        #expect(value["a"] == .number(1.5))
        #expect(value["big"] == .number(1000))
        #expect(value.jsonText() == #"{"z":1,"a":1.5,"m":[true,null,"x"],"big":1000.0}"#)
    }

    @Test("Strings round-trip escapes, surrogate pairs and control characters")
    func strings() throws {
        let text = #"["a\"b\\c\n\t\u00e9\ud83d\ude00\u0001"]"#
        let value = try JSONValue(parsing: text)
        #expect(value.arrayValue?.first?.stringValue == "a\"b\\c\n\té😀\u{01}")
        #expect(try JSONValue(parsing: value.jsonText()) == value)
    }

    @Test(
        "Malformed JSON is invalidInput with a line and column",
        arguments: [
            "", "{", "[1,]", "{\"a\" 1}", "01", "1.", "\"unterminated", "tru", "{\"a\":1} x", "\"\\ud800\"",
            "\"a\u{01}\"",
            "[1e]", "{'a': 1}", "NaN",
        ]
    )
    func malformed(_ text: String) {
        #expect {
            try JSONValue(parsing: text)
        } throws: { error in
            (error as? SDKException)?.code == .invalidInput && "\(error)".contains("line 1, column")
        }
    }

    @Test("Nesting deeper than the limit is refused instead of exhausting the stack")
    func deepNesting() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: SDKException.self) { try JSONValue(parsing: deep) }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect((try? JSONValue(parsing: fine)) != nil)
    }

    @Test("Objects compare equal whatever their member order, and encode through Codable in order")
    func objectEquality() throws {
        let a = try JSONValue(parsing: #"{"x": 1, "y": [1, 2]}"#)
        let b = try JSONValue(parsing: #"{"y": [1, 2], "x": 1}"#)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        let encoded = String(decoding: try JSONEncoder().encode(a), as: UTF8.self)
        #expect(try JSONValue(parsing: encoded) == a)
    }

    @Test("A Codable value converts to JSON and back")
    func codableBridge() throws {
        struct Point: Codable, Equatable {
            var x: Int
            var label: String
        }
        let value = try JSONValue(encoding: Point(x: 3, label: "p"))
        #expect(value["x"] == .integer(3))
        #expect(try value.decode(as: Point.self) == Point(x: 3, label: "p"))
        #expect {
            try JSONValue.object(["x": "not a number"]).decode(as: Point.self)
        } throws: { error in
            (error as? SDKException)?.code == .invalidStructuredOutput
        }
    }

    @Test("A schema must be an object or a Boolean; text that is not JSON is invalidSchema")
    func schemaDocuments() throws {
        #expect(try JSONSchema(parsing: "true").value == .bool(true))
        for text in ["[1]", "3", "\"object\"", "{\"type\": ", "nope"] {
            #expect {
                try JSONSchema(parsing: text)
            } throws: { error in
                (error as? SDKException)?.code == .invalidSchema
            }
        }
    }

    @Test("Builders write the schema JSON, properties in the order given and all required by default")
    func builders() {
        let schema = JSONSchema.object(
            ["name": .string(minLength: 1), "age": .integer(minimum: 0, maximum: 150)],
            description: "A person"
        )
        #expect(
            schema.value.jsonText()
                == #"{"type":"object","properties":{"name":{"type":"string","minLength":1},"#
                + #""age":{"type":"integer","minimum":0,"maximum":150}},"required":["name","age"],"#
                + #""additionalProperties":false,"description":"A person"}"#
        )
    }
}
