import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import RunAnywhereTesting
import Synchronization
import Testing

/// The layers above the engine (schema → grammar → generation → validation, and the tool
/// loop) on the deterministic backend, which draws a random text of each grammar: a
/// property test of the converter and the validator together, with no model.
@Suite("Structured output and tool loop on the deterministic backend")
struct StructuredOutputLoopTests {
    static let schemas: [String] = [
        #"{"type": "object", "properties": {"name": {"type": "string", "maxLength": 12}, "age": {"type": "integer", "minimum": 0, "maximum": 120}}, "required": ["name", "age"]}"#,
        #"{"type": "array", "items": {"enum": ["red", "green", 3, null]}, "minItems": 1, "maxItems": 4}"#,
        #"{"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}, "id": {"type": "string", "format": "uuid"}}, "required": ["when", "id"], "additionalProperties": false}"#,
        #"{"type": "number", "minimum": -2.5, "maximum": 7.25}"#,
        #"{"type": "string", "pattern": "^[A-Z]{2}-[0-9]{3}$"}"#,
        ##"{"$defs": {"n": {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/n"}}, "required": ["v"], "additionalProperties": false}}, "$ref": "#/$defs/n"}"##,
        #"{"anyOf": [{"type": "boolean"}, {"type": "object", "properties": {"k": {"const": "x"}}, "required": ["k"]}]}"#,
    ]

    @Test("Every generated instance of every schema validates, for many seeds")
    func generatedInstancesValidate() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadModel("test-llm")
            for text in Self.schemas {
                let schema = try JSONSchema(parsing: text)
                for seed in UInt32(1)...12 {
                    let result = try await sdk.generateStructured(
                        "Give an example.",
                        schema: schema,
                        options: LLMGenerationOptions(maxTokens: 400, seed: seed)
                    )
                    if result.generation.finishReason == .length { continue }
                    #expect(result.isValid, "\(text) seed \(seed): \(result.text) \(result.validation)")
                }
            }
        }
    }

    @Test("The tool loop calls, executes, feeds the result back and ends with a reply")
    func toolLoopRound() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadModel("test-llm")
            let seen = Mutex<[JSONValue]>([])
            try sdk.registerTool(
                ToolDefinition(
                    name: "lookup",
                    description: "Look something up",
                    parameters: .object(["query": .string(minLength: 1, maxLength: 20)])
                )
            ) { arguments in
                seen.withLock { $0.append(arguments) }
                return ["answer": "42"]
            }
            for routing in ToolRouting.allCases {
                let result = try await sdk.generateWithTools(
                    "Look up the answer.",
                    options: LLMGenerationOptions(maxTokens: 120, seed: 3),
                    toolOptions: ToolCallingOptions(toolChoice: .auto, maxIterations: 3, routing: routing)
                )
                #expect(result.toolCalls.first?.name == "lookup", "\(routing)")
                #expect(result.toolResults.first?.output == ["answer": "42"])
                #expect(result.iterations == 2, "\(routing): \(result.messages)")
                #expect(!result.reachedMaxIterations)
                #expect(result.messages.last?.role == .assistant)
            }
            #expect(seen.withLock { $0.count } == ToolRouting.allCases.count)
        }
    }
}
