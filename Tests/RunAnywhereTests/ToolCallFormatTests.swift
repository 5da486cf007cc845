import RunAnywhereGBNF
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Tool-call formats: written, constrained and read back alike")
struct ToolCallFormatTests {
    static let tools: [ToolDefinition] = [
        ToolDefinition(
            name: "get_weather",
            description: "Weather for a city.",
            parameters: .object(
                ["city": .string(), "days": .integer(minimum: 1, maximum: 7), "units": .enumeration(["c", "f"])],
                required: ["city"]
            )
        ),
        ToolDefinition(
            name: "note",
            description: "Saves a note.",
            parameters: .object([
                "text": .string(),
                "tags": .array(of: .string()),
                "meta": .object(["pinned": .boolean]),
                "score": .number(),
                "flag": .boolean,
                "maybe": .nullable(.string()),
            ])
        ),
        ToolDefinition(name: "ping", description: "Checks the connection.", parameters: .object([:])),
        ToolDefinition(name: "mcp.free", description: "Takes any arguments.", parameters: .any),
    ]

    /// Calls with awkward values, their arguments in each schema's order.
    static let calls: [ToolCall] = [
        ToolCall(id: "1", name: "get_weather", arguments: ["city": "Oslo \"Gamle\" <by> & co, ]) 'q'", "days": 3]),
        ToolCall(
            id: "2",
            name: "note",
            arguments: [
                "text": "42", "tags": ["x", "y, z"], "meta": ["pinned": true], "score": -1.5, "flag": false,
                "maybe": .null,
            ]
        ),
        ToolCall(id: "3", name: "ping", arguments: [:]),
        ToolCall(id: "4", name: "mcp.free", arguments: ["word": "Zürich\n→ 東京", "n": 7]),
    ]

    static let seedFormats: [ToolCallFormat] = [.json, .pythonic, .openaiFunctions, .xml]

    @Test(
        "Every format reads back exactly the calls it wrote, after the text before them",
        arguments: ToolCallFormat.allCases
    )
    func roundTrip(format: ToolCallFormat) throws {
        let message = format.assistantMessage(content: "Let me see.", calls: Self.calls, tools: Self.tools)
        let parsed = format.parse(message.content, tools: Self.tools)
        #expect(parsed.content.trimmed() == "Let me see.")
        #expect(parsed.dropped == 0)
        #expect(parsed.calls.map(\.name) == Self.calls.map(\.name))
        #expect(parsed.calls.map(\.arguments) == Self.calls.map(\.arguments))
    }

    @Test("The grammar of every format accepts the calls the format writes", arguments: ToolCallFormat.allCases)
    func grammarAcceptsWrittenCalls(format: ToolCallFormat) throws {
        let grammar = try format.grammar(tools: Self.tools, maxCalls: 4, lazy: false)
        let matcher = GBNFMatcher(try GBNFGrammar(parsing: grammar.gbnf, root: grammar.root))
        let written = format.assistantMessage(content: "", calls: Self.calls, tools: Self.tools).content
        #expect(matcher.accepts(written, root: grammar.root))
        let one = format.assistantMessage(content: "", calls: [Self.calls[0]], tools: Self.tools).content
        #expect(matcher.accepts(one, root: grammar.root))
        #expect(written.hasPrefix(format.openTag))
        // What a router scores is what the writer writes, up to the spaces JSON allows.
        let afterTag = written.dropFirst(format.openTag.count).filter { $0 != " " }
        #expect(afterTag.hasPrefix((format.callLead + format.namePrefix("get_weather")).filter { $0 != " " }))
    }

    @Test("A grammar refuses a call to a tool it was not given and arguments of the wrong type", arguments: seedFormats)
    func grammarRefuses(format: ToolCallFormat) throws {
        let grammar = try format.grammar(tools: [Self.tools[0]], maxCalls: 1, lazy: false)
        let matcher = GBNFMatcher(try GBNFGrammar(parsing: grammar.gbnf, root: grammar.root))
        let other = format.assistantMessage(content: "", calls: [Self.calls[2]], tools: Self.tools).content
        #expect(!matcher.accepts(other, root: grammar.root))
        let wrongType = ToolCall(id: "x", name: "get_weather", arguments: ["city": "Oslo", "days": "three"])
        let written = format.assistantMessage(content: "", calls: [wrongType], tools: Self.tools).content
        #expect(!matcher.accepts(written, root: grammar.root))
        let missing = ToolCall(id: "y", name: "get_weather", arguments: ["days": 2])
        #expect(
            !matcher.accepts(format.assistantMessage(content: "", calls: [missing], tools: Self.tools).content)
        )
    }

    @Test("Python-style calls take Python's literals, single quotes, nesting and several calls in one list")
    func pythonicReader() {
        let text = """
            Sure.<|tool_call_start|>[typed_tool(text="hello, world", score=12.5, enabled=True, none=None, \
            metadata={"nested": {"values": [1, 2]}, 'label': 'x,y'}, items=[{"id": 1}, {"id": 2},], \
            quote='it\\'s', fallback="a]b"), second()]<|tool_call_end|>
            """
        let parsed = ToolCallFormat.pythonic.parse(text)
        #expect(parsed.content == "Sure.")
        #expect(parsed.dropped == 0)
        #expect(parsed.calls.map(\.name) == ["typed_tool", "second"])
        #expect(
            parsed.calls.first?.arguments == [
                "text": "hello, world", "score": 12.5, "enabled": true, "none": .null,
                "metadata": ["nested": ["values": [1, 2]], "label": "x,y"], "items": [["id": 1], ["id": 2]],
                "quote": "it's", "fallback": "a]b",
            ]
        )
        #expect(parsed.calls.last?.arguments == [:])
    }

    @Test("Python-style calls the output cut or garbled are dropped and the complete ones kept")
    func pythonicCutAndMalformed() {
        let cut = ToolCallFormat.pythonic.parse(#"<|tool_call_start|>[a(x=1), b(y="Gem"#)
        #expect(cut.calls.map(\.name) == ["a"])
        #expect(cut.dropped == 1)
        let positional = ToolCallFormat.pythonic.parse(#"<|tool_call_start|>[a("Oslo")]<|tool_call_end|>"#)
        #expect(positional.calls.isEmpty)
        #expect(positional.dropped == 1)
        let twoPairs = ToolCallFormat.pythonic.parse(
            #"<|tool_call_start|>[a(x=1)]<|tool_call_end|> <|tool_call_start|>[b(flag=false)]<|tool_call_end|>"#
        )
        #expect(twoPairs.calls.map(\.name) == ["a", "b"])
        let deep = String(repeating: "[", count: 10_000)
        let hostile = ToolCallFormat.pythonic.parse("<|tool_call_start|>[a(x=\(deep)")
        #expect(hostile.calls.isEmpty)
        #expect(hostile.dropped == 1)
    }

    @Test("The original SDK's JSON format also reads the key names small models write instead")
    func lenientJSON() {
        let parsed = ToolCallFormat.json.parse(
            #"<tool_call>{"name": "a", "parameters": {"x": 1}}</tool_call>"#
                + #"<tool_call>{"function": "b", "args": {}}</tool_call><tool_call>{"tool": "c"}</tool_call>"#
                + #"<tool_call>{"arguments": {}}</tool_call>"#
        )
        #expect(parsed.calls.map(\.name) == ["a", "b", "c"])
        #expect(parsed.calls.first?.arguments == ["x": 1])
        #expect(parsed.dropped == 1)
        // Hermes reads only its own keys.
        #expect(ToolCallFormat.hermes.parse(#"<tool_call>{"tool": "c"}</tool_call>"#).calls.isEmpty)
    }

    @Test("OpenAI function calls take their arguments as an object or as a JSON string")
    func openAIArguments() {
        let parsed = ToolCallFormat.openaiFunctions.parse(
            #"{"function_call": {"name": "a", "arguments": "{\"city\": \"Oslo\"}"}}"#
                + "\n"
                + #"{"function_call": {"name": "b", "arguments": {"n": 2}}} {"function_call": {"name": "c", "argu"#
        )
        #expect(parsed.calls.map(\.name) == ["a", "b"])
        #expect(parsed.calls.first?.arguments == ["city": "Oslo"])
        #expect(parsed.dropped == 1)
    }

    @Test("XML values are typed by the tool's schema: a string stays text, other values are JSON")
    func xmlTyping() {
        let text = """
            <function_calls>
            <invoke name="get_weather">
            <parameter name="city">42 &amp; &lt;up&gt;</parameter>
            <parameter name="days"> 3 </parameter>
            </invoke>
            <invoke name="get_weather">
            <parameter name="city">Ber
            """
        let parsed = ToolCallFormat.xml.parse(text, tools: Self.tools)
        #expect(parsed.calls.first?.arguments == ["city": "42 & <up>", "days": 3])
        #expect(parsed.dropped == 1)
    }

    @Test(
        "Arguments stream in pieces that join into each call's arguments, in every format that writes JSON",
        arguments: ToolCallFormat.allCases
    )
    func argumentDeltas(format: ToolCallFormat) throws {
        let message = format.assistantMessage(content: "Let me see.", calls: Self.calls, tools: Self.tools)
        var tracker = ToolCallDeltaTracker(syntax: format.syntax)
        guard tracker.streams else {
            #expect([.pythonic, .xml].contains(format), "only formats that write arguments as JSON stream them")
            return
        }
        // The output grows a character at a time, as tokens come.
        var output = ""
        var pieces: [ToolCallDelta] = []
        for character in message.content {
            output.append(character)
            pieces += tracker.deltas(in: output)
        }
        #expect(tracker.deltas(in: output).isEmpty, "nothing is sent twice")
        let indices = Set(pieces.map(\.index))
        #expect(indices == Set(Self.calls.indices))
        for (index, call) in Self.calls.enumerated() {
            let mine = pieces.filter { $0.index == index }
            #expect(mine.allSatisfy { $0.name == call.name })
            let joined = mine.map(\.arguments).joined()
            #expect(try JSONValue(parsing: joined) == call.arguments, "\(format): \(joined)")
            #expect(mine.count > 1 || joined == "{}", "arguments come in pieces, not whole")
        }
    }

    @Test("A call cut inside its arguments has streamed what was written; braces in strings count for nothing")
    func cutArgumentsStream() {
        var tracker = ToolCallDeltaTracker(syntax: ToolCallFormat.hermes.syntax)
        let text = #"<tool_call>{"name": "get_weather", "arguments": {"city": "a}b{\"c", "days": 2"#
        let pieces = tracker.deltas(in: text)
        #expect(pieces.map(\.arguments).joined() == #"{"city": "a}b{\"c", "days": 2"#)
        #expect(pieces.first?.name == "get_weather")
        var before = ToolCallDeltaTracker(syntax: ToolCallFormat.hermes.syntax)
        #expect(before.deltas(in: #"<tool_call>{"name": "get_wea"#).isEmpty, "no piece before the name is whole")
        #expect(before.deltas(in: #"<tool_call>{"arguments": {"x": 1}, "name": "ping"}"#).map(\.name) == ["ping"])
    }

    @Test("Format hints read as the original SDK reads them")
    func hints() {
        #expect(ToolCallFormat(hint: "LFM2") == .pythonic)
        #expect(ToolCallFormat(hint: "liquid") == .pythonic)
        #expect(ToolCallFormat(hint: "openai") == .openaiFunctions)
        #expect(ToolCallFormat(hint: "openai_functions") == .openaiFunctions)
        #expect(ToolCallFormat(hint: "xml") == .xml)
        #expect(ToolCallFormat(hint: "default") == .json)
        #expect(ToolCallFormat(hint: "hermes") == .hermes)
        #expect(ToolCallFormat(hint: "native") == nil)
        #expect(ToolCallFormat.detect(chatTemplate: "{{ '<|tool_call_start|>' }}") == .pythonic)
    }
}
