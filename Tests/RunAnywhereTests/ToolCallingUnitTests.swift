import Foundation
import Synchronization
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Tool calling: definitions, registry, formats and routing")
struct ToolCallingUnitTests {
    static let weather = ToolDefinition(
        name: "get_weather",
        description: "Current weather for a city",
        parameters: .object(["city": .string(minLength: 1)])
    )

    @Test(
        "OpenAI-style definitions are read wrapped or bare, dotted names (as MCP and BFCL write them) too; bad ones are invalidTool"
    )
    func openAIDefinitions() throws {
        let tools = try ToolDefinition.list(
            openAI: #"""
                [{"type": "function", "function": {"name": "a", "description": "A", "parameters": {"type": "object"}}},
                 {"name": "b", "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}}},
                 {"name": "math.add", "parameters": {"type": "object"}}]
                """#
        )
        #expect(tools.map(\.name) == ["a", "b", "math.add"])
        let bad = [
            "not json", "{}", #"[{"description": "no name"}]"#, #"[{"name": "a"}, {"name": "a"}]"#,
            #"[{"name": "has space"}]"#, #"[{"name": "slash/name"}]"#,
            #"[{"name": "s", "parameters": {"type": "string"}}]"#,
            #"[{"name": "n", "parameters": 3}]"#, #"[{"name": ""}]"#,
        ]
        for text in bad {
            #expect(
                performing: { try ToolDefinition.list(openAI: text) },
                throws: { error in
                    (error as? SDKException)?.code == .invalidTool
                }
            )
        }
    }

    @Test("The registry refuses duplicates, and invalid arguments or unknown tools never reach an executor")
    func registryGuards() async throws {
        let registry = ToolRegistry()
        let calls = Mutex(0)
        try registry.register(Self.weather) { arguments in
            calls.withLock { $0 += 1 }
            return ["city": arguments["city"] ?? .null, "temperature_c": 21]
        }
        #expect(
            performing: { try registry.register(Self.weather) { _ in .null } },
            throws: { error in
                (error as? SDKException)?.code == .invalidTool
            }
        )
        let ok = await registry.execute(ToolCall(id: "1", name: "get_weather", arguments: ["city": "Paris"]))
        #expect(ok.output?["temperature_c"] == .integer(21))
        let invalid = await registry.execute(ToolCall(id: "2", name: "get_weather", arguments: ["city": 3]))
        #expect(invalid.isError)
        let missing = await registry.execute(ToolCall(id: "3", name: "get_weather", arguments: [:]))
        #expect(missing.isError)
        let unknown = await registry.execute(ToolCall(id: "4", name: "nope", arguments: [:]))
        #expect(unknown.error?.contains("Unknown tool") == true)
        #expect(calls.withLock { $0 } == 1)
        #expect(registry.unregister("get_weather"))
        #expect(!registry.unregister("get_weather"))
        #expect(registry.definitions.isEmpty)
    }

    @Test("An executor that throws or hangs becomes a failed result, not a crash or a wait")
    func failingExecutors() async throws {
        struct Broken: Error {}
        let registry = ToolRegistry()
        try registry.register(ToolDefinition(name: "boom", description: "")) { _ in throw Broken() }
        // Ignores cancellation on purpose: the registry must not wait for it.
        try registry.register(ToolDefinition(name: "hang", description: "")) { _ in
            await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
            return .null
        }
        let boom = await registry.execute(ToolCall(id: "1", name: "boom", arguments: [:]))
        #expect(boom.error?.contains("Broken") == true)
        let hang = await registry.execute(ToolCall(id: "2", name: "hang", arguments: [:]), timeout: 0.2)
        #expect(hang.error?.contains("did not answer") == true)
    }

    @Test("Codable executors decode their arguments and encode their output")
    func codableExecutors() async throws {
        struct Arguments: Decodable { var city: String }
        struct Output: Encodable { var summary: String }
        let registry = ToolRegistry()
        try registry.register(Self.weather, as: Arguments.self) { arguments in
            Output(summary: "Sunny in \(arguments.city)")
        }
        let result = await registry.execute(ToolCall(id: "1", name: "get_weather", arguments: ["city": "Oslo"]))
        #expect(result.output == ["summary": "Sunny in Oslo"])
    }

    @Test(
        "Hermes calls parse with the text before them; a call the token limit cut or a malformed one is dropped, the complete ones kept"
    )
    func hermesParsing() {
        let format = ToolCallFormat.hermes
        let parsed = format.parse(
            "Let me check.<tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": 1}}\n</tool_call>\n"
                + "<tool_call>{\"name\": \"b\", \"arguments\": {}}</tool_call>"
        )
        #expect(parsed.content == "Let me check.")
        #expect(parsed.calls.map(\.name) == ["a", "b"])
        #expect(parsed.calls[0].arguments == ["x": 1])
        #expect(parsed.dropped == 0)
        #expect(format.parse("Just text.").calls.isEmpty)
        // What the official client met: a forced call, then an invented one the limit cut.
        let cut = format.parse(
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>\n"
                + "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Gem"
        )
        #expect(cut.calls.map(\.name) == ["get_weather"])
        #expect(cut.calls.first?.arguments == ["city": "Oslo"])
        #expect(cut.dropped == 1)
        let malformed = format.parse(
            "<tool_call>nope</tool_call><tool_call>{\"arguments\": {}}</tool_call>"
                + "<tool_call>{\"name\": \"a\", \"arguments\": 3}</tool_call>"
                + "<tool_call>{\"name\": \"ok\"}</tool_call>"
        )
        #expect(malformed.calls.map(\.name) == ["ok"])
        #expect(malformed.calls.first?.arguments == [:])
        #expect(malformed.dropped == 3)
    }

    @Test("Llama 3 calls are bare JSON objects with parameters")
    func llama3Parsing() throws {
        let parsed = ToolCallFormat.llama3.parse(#"{"name": "a", "parameters": {"s": "}{"}} trailing"#)
        #expect(parsed.calls.first?.arguments == ["s": "}{"])
        // A grammar lets the model space the object as JSON allows.
        let spaced = ToolCallFormat.llama3.parse("Sure: {\n  \"name\" : \"a\", \"parameters\": {}}")
        #expect(spaced.content == "Sure: ")
        #expect(spaced.calls.map(\.name) == ["a"])
        let cut = ToolCallFormat.llama3.parse(#"{"name": "a", "parameters": {}} {"name": "b", "param"#)
        #expect(cut.calls.map(\.name) == ["a"])
        #expect(cut.dropped == 1)
    }

    @Test("The format follows the chat template: Hermes tags, Llama 3 ipython, otherwise generic")
    func formatDetection() {
        #expect(ToolCallFormat.detect(chatTemplate: "{% if tools %}<tool_call>{% endif %}") == .hermes)
        #expect(ToolCallFormat.detect(chatTemplate: "<|start_header_id|>ipython<|end_header_id|>") == .llama3)
        #expect(ToolCallFormat.detect(chatTemplate: "<|im_start|>{{ message.role }}") == .generic)
        #expect(ToolCallFormat.detect(chatTemplate: nil) == .generic)
    }

    @Test("Streaming holds back text that may be a call tag and drops the call itself")
    func holdback() {
        var holdback = CallTextHoldback(tag: "<tool_call>")
        var shown = ""
        for piece in ["Sure", ", <", "tool", "_call>{\"name\"", ": 1}"] {
            shown += holdback.consume(piece) ?? ""
        }
        #expect(shown == "Sure, ")
        #expect(holdback.finish() == nil)
        var plain = CallTextHoldback(tag: "<tool_call>")
        let first = plain.consume("a < b and <to") ?? ""
        #expect(first + (plain.finish() ?? "") == "a < b and <to")
    }

    @Test("The lexical router picks the tool whose words the request shares")
    func lexicalRouting() throws {
        let evaluationTools = try ToolDefinition.list(
            openAI: #"""
                [{"name": "get_weather", "description": "Get the weather forecast for a city."},
                 {"name": "set_timer", "description": "Start a countdown timer for minutes."},
                 {"name": "control_lights", "description": "Turn the lights in a room on or off."}]
                """#
        )
        let router = ToolRouter(routing: .lexical)
        #expect(
            router.choose(among: evaluationTools, request: "Set a timer for 10 minutes", likelihoods: nil).tool
                == "set_timer"
        )
        #expect(
            router.choose(among: evaluationTools, request: "Turn on the kitchen lights", likelihoods: nil).tool
                == "control_lights"
        )
        let hybrid = ToolRouter(routing: .hybrid).choose(
            among: evaluationTools,
            request: "Will it rain in Paris?",
            likelihoods: [-1, -9, -9]
        )
        #expect(hybrid.tool == "get_weather")
        #expect(hybrid.method == .hybrid)
        #expect(hybrid.scores.count == 3)
    }

    @Test("Trigger words become escaped patterns, so no word can make an invalid regular expression")
    func triggerPatterns() throws {
        let grammar = LLMGrammar.lazy(#"root ::= "x""#, triggeredBy: ["<tool_call>", "a.b*(c)", "[x]"])
        #expect(grammar.triggerPatterns[0] == #"[\s\S]*?(\<tool\_call\>)[\s\S]*"#)
        #expect(grammar.triggerPatterns[1] == #"[\s\S]*?(a\.b\*\(c\))[\s\S]*"#)
        #expect(throws: SDKException.self) { try LLMGrammar.lazy("root ::= \"x\"", triggeredBy: [""]).validate() }
        let decoded = try JSONDecoder().decode(LLMGrammar.self, from: Data(#"{"gbnf": "root ::= \"a\""}"#.utf8))
        #expect(decoded.root == "root" && decoded.triggerWords.isEmpty)
    }

    @Test("Tool-calling options refuse out-of-range values")
    func optionRanges() {
        for options in [
            ToolCallingOptions(maxIterations: 0), ToolCallingOptions(maxParallelCalls: 0),
            ToolCallingOptions(executorTimeout: -1), ToolCallingOptions(executorTimeout: .nan),
        ] {
            #expect(throws: SDKException.self) { try options.validate() }
        }
    }
}
