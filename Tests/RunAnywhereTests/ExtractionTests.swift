import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import RunAnywhereTesting
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Extraction helpers")
struct ExtractionTests {
    let person = JSONSchema.object(
        ["name": .string(minLength: 1), "age": .integer(minimum: 0, maximum: 150)],
        required: ["name", "age"]
    )

    @Test("JSON is found in a fenced block, bare in prose, or as the whole text, with its character offsets")
    func finds() throws {
        let fenced = "Sure 😀! Here you go:\n```json\n{\"name\": \"Ada\", \"age\": 36}\n```\nAnything else?"
        let a = try RunAnywhere.extractStructuredOutput(from: fenced, schema: person)
        #expect(a.fenced)
        #expect(a.value["name"]?.stringValue == "Ada")
        let start = fenced.index(fenced.startIndex, offsetBy: a.startOffset)
        let end = fenced.index(fenced.startIndex, offsetBy: a.endOffset)
        #expect(String(fenced[start..<end]) == a.json)
        #expect(a.json == "{\"name\": \"Ada\", \"age\": 36}")

        let bare = "The record is {\"name\": \"Grace\", \"age\": 85} as requested."
        let b = try RunAnywhere.extractStructuredOutput(from: bare, schema: person)
        #expect(!b.fenced)
        #expect(b.value["age"] == .integer(85))
        #expect(b.startOffset == 14)

        let whole = try RunAnywhere.extractStructuredOutput(from: "  [1, 2, 3]\n", schema: .array(of: .integer()))
        #expect(whole.value == .array([.integer(1), .integer(2), .integer(3)]))
        let oneLine = try RunAnywhere.extractStructuredOutput(from: "```[4]```", schema: .array(of: .integer()))
        #expect(oneLine.fenced && oneLine.value == .array([.integer(4)]))
    }

    @Test("The first value valid against the schema wins: an invalid block is passed over, a nested object is found")
    func firstValid() throws {
        let text = """
            Draft: ```json
            {"name": "Ada"}
            ```
            Final: {"result": {"name": "Ada", "age": 36}}
            """
        let found = try RunAnywhere.extractStructuredOutput(from: text, schema: person)
        #expect(found.value == (try JSONValue(parsing: #"{"name": "Ada", "age": 36}"#)))
        #expect(!found.fenced)
    }

    @Test("Text without JSON, or with JSON that breaks the schema, is a typed error that says which")
    func errors() {
        for (text, says) in [
            ("No JSON here at all.", "no JSON value"),
            ("{\"name\": \"Ada\", \"age\": 200}", "maximum"),
            ("{\"name\": \"Ada\", \"age\": ", "no JSON value"),
            ("", "no JSON value"),
        ] {
            do throws(SDKException) {
                _ = try RunAnywhere.extractStructuredOutput(from: text, schema: person)
                Issue.record("\(text) gave a value")
            } catch {
                #expect(error.code == .invalidStructuredOutput)
                #expect(error.message.contains(says), "\(error.message)")
            }
        }
    }

    @Test("A megabyte of brackets and a deeply nested value are refused without a crash")
    func hostile() {
        for text in [
            String(repeating: "[", count: 1 << 20),
            String(repeating: "[", count: 5000) + "1" + String(repeating: "]", count: 5000),
        ] {
            #expect(throws: SDKException.self) {
                try RunAnywhere.extractStructuredOutput(from: text, schema: .array(of: .integer()))
            }
        }
    }

    @Test("Spans are placed at their successive occurrences, and a span the text lacks is dropped")
    func locate() throws {
        let text = "Paris is big. I love Paris in May, said Ana."
        let located = NamedEntity.locate(
            [
                ("Paris", "location"), ("Paris", "location"), ("Berlin", "location"), ("Ana", "person"),
                ("Paris", "location"),
            ],
            in: text
        ).map(\.0)
        #expect(located.map(\.text) == ["Paris", "Paris", "Ana"])
        #expect(located.map(\.startOffset) == [0, 21, 40])
        for entity in located {
            let range = try #require(entity.range(in: text))
            #expect(String(text[range]) == entity.text)
        }
        #expect(
            NamedEntity(text: "x", entityType: "t", startOffset: 3, endOffset: 99, confidence: 1).range(in: text) == nil
        )
    }

    @Test("Entity extraction refuses empty text, text too long, and empty or repeated types, and needs a model")
    func entityInputs() async throws {
        try await withDeterministicSDK { sdk in
            for (text, types, code) in [
                ("  ", ["person"], SDKException.Code.emptyText),
                (String(repeating: "a", count: NamedEntity.maximumTextLength + 1), ["person"], .invalidInput),
                ("Ada", [], .invalidInput),
                ("Ada", ["person", " "], .invalidInput),
                ("Ada", ["person", "person"], .invalidInput),
                ("Ada lives in Paris.", ["person"], .modelNotLoaded),
            ] {
                do throws(SDKException) {
                    _ = try await sdk.extractEntities(from: text, types: types)
                    Issue.record("\(types) accepted")
                } catch {
                    #expect(error.code == code, "\(error)")
                }
            }
            // On the deterministic model every entity it returns is at its offsets, typed from the list.
            try await sdk.loadModel("test-llm")
            let text = "Ada Lovelace met Charles Babbage in London in 1833."
            for entity in try await sdk.extractEntities(from: text, types: ["person", "location"]) {
                #expect(String(text[try #require(entity.range(in: text))]) == entity.text)
                #expect(["person", "location"].contains(entity.entityType))
                #expect((0...1).contains(entity.confidence))
            }
        }
    }
}
