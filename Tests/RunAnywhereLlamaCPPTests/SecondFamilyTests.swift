import Foundation
import RealEngineTestSupport
import RunAnywhereLlamaCPP
import RunAnywhereTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

/// The behaviour that does not hang on how well a model follows instructions, on a second real
/// model family beside SmolLM2 (Llama architecture, 49K BPE vocabulary): Gemma 3 270M, Google's
/// pretrained model (gemma3 architecture, 262K SentencePiece vocabulary), Q4_K_M, imported by the
/// bootstrap as `gemma3-270m`. Its GGUF carries no chat template, so these tests also pass one of
/// the app's: Gemma's turn format, from the sdist's `google-gemma-2-2b-it.jinja`.
@Suite("A second model family: Gemma 3 270M", .serialized, .wholeMachine, .tags(.realEngine))
struct SecondFamilyTests {
    static let gemma = "gemma3-270m"

    /// Gemma's own turn format, which its instruction-tuned models were trained on.
    static func gemmaTemplate() throws -> String {
        try #require(try ChatTemplateTests.sdistTemplates().first { $0.name == "google-gemma-2-2b-it.jinja" }).source
    }

    /// Both model families, for the suites whose behaviour does not hang on how well a model
    /// follows instructions: SmolLM2 (Llama architecture) and Gemma 3 270M.
    static let families = [DefaultModels.llmId, gemma]

    /// Loads `model` into `sdk` as the tests use it: Gemma under its turn format (its file has
    /// no template), any other model as it is.
    static func load(_ model: String, in sdk: RunAnywhereSDK) async throws {
        if model == gemma {
            try await sdk.loadModel(model, contextLength: 1024, chatTemplate: try gemmaTemplate())
        } else {
            try await sdk.loadModel(model)
        }
    }

    /// An SDK with Gemma loaded under its template (or `template`), and SmolLM2 registered.
    func withGemma<T>(template: String?? = .none, _ body: (RunAnywhereSDK) async throws -> T) async throws -> T {
        let chosen = try template ?? Self.gemmaTemplate()
        return try await withSDK(models: [DefaultModels.llmId, Self.gemma]) { sdk in
            try await sdk.loadModel(Self.gemma, contextLength: 1024, chatTemplate: chosen)
            return try await body(sdk)
        }
    }

    @Test("Gemma answers through the template the app passed, the same greedy text twice")
    func generationWithTheAppsTemplate() async throws {
        try await withGemma { sdk in
            let prompt = try await sdk.formatPrompt([.user("Name three rivers.")])
            #expect(prompt == "<start_of_turn>user\nName three rivers.<end_of_turn>\n<start_of_turn>model\n")
            let first = try await sdk.chat([.user("Name three rivers.")], options: greedy)
            let second = try await sdk.chat([.user("Name three rivers.")], options: greedy)
            #expect(first.generatedTokens > 0)
            #expect(first.text == second.text)
            #expect(first.promptFormatting == .modelTemplate)
            #expect(first.modelId == Self.gemma)
        }
    }

    @Test("Without a template Gemma falls back to llama.cpp's built-in formats, and the result says so")
    func noTemplateIsSaid() async throws {
        try await withGemma(template: .some(nil)) { sdk in
            let result = try await sdk.chat([.user("Hello")], options: greedy)
            #expect(result.promptFormatting == .builtIn)
            let raw = try await sdk.generate(
                "The capital of France is",
                options: LLMGenerationOptions(maxTokens: 4, temperature: 0, applyChatTemplate: false)
            )
            #expect(raw.promptFormatting == .raw)
        }
    }

    @Test("A chat template the app passes that does not parse fails the load with a typed error")
    func badTemplateFailsTheLoad() async throws {
        try await withSDK(models: [Self.gemma]) { sdk in
            await expectCode(.invalidInput) {
                try await sdk.loadModel(Self.gemma, chatTemplate: "{% for m in messages %}{{ m.content }")
            }
            await expectCode(.invalidInput) { try await sdk.loadModel(Self.gemma, chatTemplate: "  ") }
            #expect(await sdk.currentLLMModel == nil)
        }
    }

    @Test("Streamed tokens add up to the whole reply, and a cancel ends the stream within a token")
    func streamingAndCancellation() async throws {
        try await withGemma { sdk in
            let options = LLMGenerationOptions(maxTokens: 40, temperature: 0, repetitionPenalty: 1)
            let whole = try await sdk.generate("The history of the bicycle", options: options)
            var streamed = ""
            var final: LLMGenerationResult?
            for try await event in try await sdk.generateStream("The history of the bicycle", options: options) {
                switch event {
                case .token(let text, _): streamed += text
                case .completed(let result): final = result
                }
            }
            #expect(streamed == whole.text)
            #expect(final?.text == whole.text)

            var long = options
            long.maxTokens = 400
            long.ignoreEndOfSequence = true
            var seen = 0
            var afterCancel = 0
            var cancelled: LLMGenerationResult?
            for try await event in try await sdk.generateStream("Once upon a time", options: long) {
                switch event {
                case .token:
                    seen += 1
                    if seen > 5 { afterCancel += 1 }
                    if seen == 5 { await sdk.cancelGeneration() }
                case .completed(let result):
                    cancelled = result
                }
            }
            #expect(cancelled?.finishReason == .cancelled)
            #expect(afterCancel <= 1)
        }
    }

    @Test("Output under a JSON Schema is valid on Gemma's vocabulary")
    func structuredOutputIsValid() async throws {
        try await withGemma { sdk in
            let schema = try JSONSchema(
                parsing: #"""
                    {"type": "object", "properties": {
                        "city": {"type": "string", "minLength": 1, "maxLength": 40},
                        "population": {"type": "integer", "minimum": 0},
                        "coastal": {"type": "boolean"},
                        "districts": {"type": "array", "items": {"type": "string", "maxLength": 30}, "maxItems": 3}},
                     "required": ["city", "population", "coastal", "districts"], "additionalProperties": false}
                    """#
            )
            let result = try await sdk.generateStructured(
                "Describe a city as JSON.",
                schema: schema,
                options: LLMGenerationOptions(maxTokens: 200, temperature: 0)
            )
            #expect(result.isValid, "\(result.text)")
            #expect(result.value?["city"]?.stringValue?.isEmpty == false)
        }
    }

    @Test("A forced tool call on Gemma has the tool's name and arguments valid against its schema")
    func toolCallSyntaxUnderTheGrammar() async throws {
        try await withGemma { sdk in
            let weather = ToolDefinition(
                name: "get_weather",
                description: "The current weather in a city",
                parameters: .object(["city": .string(minLength: 1, maxLength: 40)], required: ["city"])
            )
            try sdk.registerTool(weather) { _ in ["temperature_c": 7] }
            let result = try await sdk.generateWithTools(
                "What is the weather in Oslo?",
                options: LLMGenerationOptions(maxTokens: 120, temperature: 0),
                toolOptions: ToolCallingOptions(toolChoice: .required, maxIterations: 1, executeTools: false)
            )
            let call = try #require(result.toolCalls.first)
            #expect(call.name == "get_weather")
            #expect(call.arguments["city"]?.stringValue?.isEmpty == false)
        }
    }

    @Test("A LoRA adapter made for SmolLM2 is refused for Gemma with a typed error")
    func loraForAnotherArchitectureIsRefused() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ra-gemma-lora-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("smollm2-adapter.gguf")
        try LoRATests.write(LoRATests.Weights(rank: 4, seed: 3), to: file)
        try await withGemma { sdk in
            try LoRATests.register(sdk, "smollm2-adapter", file)
            let check = await sdk.lora.checkCompatibility("smollm2-adapter")
            #expect(!check.isCompatible)
            #expect(check.reason != nil)
            await expectCode(.incompatibleLoRAAdapter) { try await sdk.lora.apply("smollm2-adapter") }
            #expect(try await sdk.generate("Hello", options: greedy).generatedTokens > 0)
        }
    }
}
