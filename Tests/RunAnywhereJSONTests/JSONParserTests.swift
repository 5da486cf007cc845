import RunAnywhereJSON
import Testing

@Suite("The JSON module on its own")
struct JSONParserTests {
    @Test("A parsed object keeps its member order, integers and decimals apart, and prints back compactly")
    func orderNumbersAndText() throws {
        let value = try JSONParser.parse(
            #" {"z": 1, "a": -1.5, "e": 2e3, "big": 18446744073709551616, "s": "\u00e9\n"} "#
        )
        #expect(value.objectValue?.keys == ["z", "a", "e", "big", "s"])
        #expect(value["z"] == .integer(1))
        #expect(value["a"] == .number(-1.5))
        #expect(value["e"] == .number(2000))
        #expect(value["big"] == .number(18_446_744_073_709_551_616))
        #expect(value["s"] == .string("é\n"))
        #expect(value.jsonText() == #"{"z":1,"a":-1.5,"e":2000.0,"big":1.8446744073709552e+19,"s":"é\n"}"#)
        #expect(try JSONParser.parse(value.jsonText()) == value)
    }

    @Test(
        "Text that is not JSON is refused with the line and column of the problem",
        arguments: [
            ("{\"a\": 1,}", "line 1, column 9"),
            ("[1,\n 2,\n x]", "line 3, column 2"),
            ("\"unclosed", "line 1, column 10"),
            ("01", "line 1, column 2"),
            ("{} {}", "line 1, column 4"),
            ("", "line 1, column 1"),
        ]
    )
    func syntaxErrors(_ text: String, _ place: String) {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(text) }
        #expect(error?.message.contains(place) == true, "\(error?.message ?? "")")
    }

    @Test("Nesting past the limit and objects past the container budget are refused, not a crash")
    func limits() throws {
        let deep =
            String(repeating: "[", count: JSONParser.maximumDepth + 1)
            + String(repeating: "]", count: JSONParser.maximumDepth + 1)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(deep) }
        let tiny = "[" + Array(repeating: "{}", count: 2_000).joined(separator: ",") + "]"
        let budget = JSONParser.containerBudget(forBytes: tiny.utf8.count)
        #expect(budget < 2_001)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(tiny, maximumContainers: budget) }
        #expect(try JSONParser.parse(tiny).arrayValue?.count == 2_000)
    }

    @Test("A value found inside longer text ends where its closing bracket is")
    func valueInText() throws {
        let bytes = Array(#"Sure: {"a": [1, 2]} and more"#.utf8)
        let found = try #require(JSONParser.value(in: bytes, at: 6))
        #expect(found.value == ["a": [1, 2]])
        #expect(found.end == 19)
        #expect(JSONParser.value(in: bytes, at: 0) == nil)
    }
}
