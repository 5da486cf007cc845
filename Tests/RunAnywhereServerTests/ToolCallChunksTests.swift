import RunAnywhere
import Testing

@testable import RunAnywhereServer

/// The state machine behind a streamed completion's `tool_calls` deltas, without a server.
@Suite("Streamed tool-call chunks")
struct ToolCallChunksTests {
    static func fields(_ delta: JSONObject) -> JSONValue? { delta["tool_calls"]?.arrayValue?.first }

    @Test("Pieces open a call with its id and name, checked calls after them add nothing, other calls come whole")
    func piecesThenWhole() throws {
        var chunks = ToolCallChunks(newId: { "call_fixed" })
        let opened = chunks.delta(ToolCallDelta(index: 0, name: "get_weather", arguments: #"{"city": "#))
        #expect(opened.count == 2)
        let header = try #require(Self.fields(opened[0]))
        #expect(header["id"] == "call_fixed")
        #expect(header["index"] == 0)
        #expect(header["function"]?["name"] == "get_weather")
        #expect(header["function"]?["arguments"] == "")
        #expect(Self.fields(opened[1])?["function"]?["arguments"] == #"{"city": "#)
        let more = chunks.delta(ToolCallDelta(index: 0, name: "get_weather", arguments: #""Oslo"}"#))
        #expect(more.count == 1)
        #expect(Self.fields(more[0])?["id"] == nil)
        #expect(chunks.call(ToolCall(id: "call_1_0", name: "get_weather", arguments: ["city": "Oslo"])).isEmpty)

        // A call in a format that streams no pieces (Python-style, XML) comes whole, next index.
        let whole = chunks.call(ToolCall(id: "call_1_1", name: "ping", arguments: [:]))
        #expect(whole.count == 2)
        #expect(Self.fields(whole[0])?["index"] == 1)
        #expect(Self.fields(whole[0])?["id"] == "call_1_1")
        #expect(Self.fields(whole[1])?["function"]?["arguments"] == "{}")
    }
}
