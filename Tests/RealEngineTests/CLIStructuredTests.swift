import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

extension RealEngineTests {
    @Suite("The CLI's structured output and tool calls", .tags(.cli))
    struct CLIStructuredTests {
        static func file(_ name: String, _ text: String) throws -> URL {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ra-cli-\(UUID().uuidString)-\(name)"
            )
            try text.write(to: url, atomically: true, encoding: .utf8)
            return url
        }

        @Test("generate --json-schema prints only a valid instance; with --json the envelope says valid")
        func jsonSchema() throws {
            try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
            let schema = try Self.file(
                "schema.json",
                #"{"type": "object", "properties": {"city": {"type": "string", "maxLength": 30}, "country": {"type": "string", "maxLength": 30}}, "required": ["city", "country"], "additionalProperties": false}"#
            )
            defer { try? FileManager.default.removeItem(at: schema) }
            let base = [
                "generate", "--model", DefaultModels.llmId, "--prompt", "The capital of France.", "--temperature", "0",
                "--max-tokens", "60", "--json-schema", schema.path,
            ]
            let plain = try cli(base)
            #expect(plain.status == 0, "\(plain.err)")
            let instance = try JSONValue(parsing: plain.out)
            #expect(try JSONSchema(parsing: String(contentsOf: schema, encoding: .utf8)).validate(instance).isEmpty)
            let enveloped = try cli(base + ["--json"])
            #expect(enveloped.status == 0, "\(enveloped.err)")
            let envelope = try JSONValue(parsing: enveloped.out)
            #expect(envelope["valid"] == .bool(true))
            #expect(envelope["output"] == instance)
            #expect(envelope["finish_reason"] == "stop")
        }

        @Test("An unsupported, invalid or unreadable schema exits non-zero with one line naming the problem")
        func badSchemas() throws {
            try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
            let cases = [
                (#"{"type": "array", "uniqueItems": true}"#, "uniqueItems"),
                ("{not json", "not valid JSON"),
                (##"{"$ref": "#/$defs/nowhere"}"##, "nowhere"),
            ]
            for (text, expected) in cases {
                let schema = try Self.file("bad.json", text)
                defer { try? FileManager.default.removeItem(at: schema) }
                let run = try cli([
                    "generate", "--model", DefaultModels.llmId, "--prompt", "x", "--json-schema", schema.path,
                ])
                #expect(run.status != 0)
                #expect(run.out.isEmpty)
                let lines = run.err.split(separator: "\n")
                #expect(lines.count == 1 && run.err.contains(expected), "\(run.err)")
            }
            let missing = try cli([
                "generate", "--model", DefaultModels.llmId, "--prompt", "x", "--json-schema", "/nope",
            ])
            #expect(missing.status != 0 && missing.err.contains("/nope"))
        }

        @Test("generate --grammar follows a GBNF file; --tools --json prints the calls without running them")
        func grammarAndTools() throws {
            try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
            let grammar = try Self.file("g.gbnf", #"root ::= "yes" | "no""#)
            let tools = try Self.file(
                "tools.json",
                #"[{"type": "function", "function": {"name": "set_timer", "description": "Start a timer", "parameters": {"type": "object", "properties": {"minutes": {"type": "integer", "minimum": 1, "maximum": 60}}, "required": ["minutes"]}}}, {"name": "get_weather", "description": "Weather for a city", "parameters": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 20}}, "required": ["city"]}}]"#
            )
            defer {
                try? FileManager.default.removeItem(at: grammar)
                try? FileManager.default.removeItem(at: tools)
            }
            let answer = try cli(
                [
                    "generate", "--model", DefaultModels.llmId, "--prompt", "Is the sea salty?", "--grammar",
                    grammar.path,
                ]
            )
            #expect(answer.status == 0, "\(answer.err)")
            #expect(["yes", "no"].contains(answer.out.trimmingCharacters(in: .whitespacesAndNewlines)))
            let calls = try cli(
                [
                    "generate", "--model", DefaultModels.llmId, "--prompt", "Set a timer for 10 minutes.", "--tools",
                    tools.path, "--tool-choice", "required", "--temperature", "0", "--json",
                ]
            )
            #expect(calls.status == 0, "\(calls.err)")
            let output = try JSONValue(parsing: calls.out)
            let call = try #require(output["tool_calls"]?.arrayValue?.first)
            #expect(call["name"] == "set_timer")
            #expect(call["arguments"]?["minutes"]?.integerValue.map { (1...60).contains($0) } == true)
            let forced = try cli(
                [
                    "generate", "--model", DefaultModels.llmId, "--prompt", "Set a timer.", "--tools", tools.path,
                    "--tool-choice", "get_weather", "--temperature", "0", "--json",
                ]
            )
            #expect(try JSONValue(parsing: forced.out)["tool_calls"]?.arrayValue?.first?["name"] == "get_weather")
            let duplicate = try Self.file("dup.json", #"[{"name": "a"}, {"name": "a"}]"#)
            defer { try? FileManager.default.removeItem(at: duplicate) }
            let refused = try cli([
                "generate", "--model", DefaultModels.llmId, "--prompt", "x", "--tools", duplicate.path,
            ])
            #expect(refused.status != 0 && refused.err.contains("Two tools"))
        }
    }
}
