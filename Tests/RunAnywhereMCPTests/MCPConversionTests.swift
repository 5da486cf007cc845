import Foundation
import MCP
import RunAnywhere
import Testing

@testable import RunAnywhereMCP

@Suite("MCP conversions: command lines, values and tool results")
struct MCPConversionTests {
    @Test("Command lines split like a shell's, quotes and backslashes included, without running one")
    func commandLines() throws {
        let cases: [(String, [String])] = [
            ("python3 -m server", ["python3", "-m", "server"]),
            ("  npx   -y  pkg  ", ["npx", "-y", "pkg"]),
            (#"run 'a b' "c d" e\ f"#, ["run", "a b", "c d", "e f"]),
            (#"run --name="x y" 'it'"'"'s'"#, ["run", "--name=x y", "it's"]),
            (#"run "a\"b\\c\d" ''"#, ["run", #"a"b\c\d"#, ""]),
            ("run '|' \">\" \\;", ["run", "|", ">", ";"]),
            ("run 'ünï cödé' 東京", ["run", "ünï cödé", "東京"]),
        ]
        for (line, words) in cases {
            #expect(try CommandLineSplitter.split(line) == words, "\(line)")
        }
    }

    @Test("Empty lines, open quotes and unquoted shell operators are refused as invalidInput")
    func badCommandLines() {
        let bad = [
            "", "   ", #"run "open"#, "run 'open", #"run trailing\"#, "server > log", "a | b", "a; b", "$HOME/x",
        ]
        for line in bad {
            #expect(
                performing: { try CommandLineSplitter.split(line) },
                throws: { error in
                    (error as? SDKException)?.code == .invalidInput
                }
            )
        }
    }

    @Test("MCP values become JSONValues with integers apart from doubles and members in a stable order")
    func valuesToJSON() {
        let value = MCP.Value.object([
            "zeta": .int(1),
            "alpha": .double(1.5),
            "mid": .array([.null, .bool(true), .string("s"), .double(2)]),
        ])
        let json = JSONValue(mcp: value)
        #expect(json.objectValue?.keys == ["alpha", "mid", "zeta"])
        #expect(json["zeta"] == .integer(1))
        #expect(json["alpha"] == .number(1.5))
        #expect(json["mid"] == [nil, true, "s", .number(2)])
        #expect(
            JSONValue(mcp: .data(mimeType: "text/plain", Array("hi".utf8).withUnsafeBytes { Data($0) }))
                == .string("data:text/plain;base64,aGk=")
        )
    }

    @Test("JSONValues become MCP values with integers apart from doubles")
    func jsonToValues() {
        let json: JSONValue = ["count": 5, "ratio": 2.0, "tags": ["a", nil, false], "nested": ["k": "v"]]
        let value = MCP.Value(json: json)
        #expect(value.objectValue?["count"] == .int(5))
        #expect(value.objectValue?["ratio"] == .double(2))
        #expect(value.objectValue?["tags"] == .array([.string("a"), .null, .bool(false)]))
        #expect(value.objectValue?["nested"] == .object(["k": .string("v")]))
        #expect(JSONValue(mcp: value) == json)
    }

    @Test("A result's text is its output, parsed as JSON when it is JSON")
    func textResults() throws {
        #expect(try MCPToolSource.output(of: ["content": [["type": "text", "text": "5"]]]) == 5)
        #expect(try MCPToolSource.output(of: ["content": [["type": "text", "text": "Paris"]]]) == "Paris")
        let object = try MCPToolSource.output(of: ["content": [["type": "text", "text": #"{"b": 1, "a": 2}"#]]])
        #expect(object.objectValue?.keys == ["b", "a"])
        let joined: JSONValue = [
            "content": [["type": "text", "text": "one"], ["type": "image"], ["type": "text", "text": "two"]]
        ]
        #expect(try MCPToolSource.output(of: joined) == "one\ntwo")
    }

    @Test("A result without text gives its structured content, else its content items")
    func otherResults() throws {
        let structured: JSONValue = ["content": [], "structuredContent": ["result": 5]]
        #expect(try MCPToolSource.output(of: structured) == ["result": 5])
        let image: JSONValue = ["content": [["type": "image", "data": "aGk=", "mimeType": "image/png"]]]
        #expect(try MCPToolSource.output(of: image) == image["content"])
    }

    @Test("An isError result throws toolExecutionFailed with the server's text")
    func errorResults() {
        let failed: JSONValue = [
            "content": [["type": "text", "text": "unknown country: 'Atlantis'"]], "isError": true,
        ]
        #expect(
            performing: { try MCPToolSource.output(of: failed) },
            throws: { error in
                let error = error as? SDKException
                return error?.code == .toolExecutionFailed && error?.message == "unknown country: 'Atlantis'"
            }
        )
    }
}
