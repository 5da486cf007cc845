import Foundation
import RealEngineTestSupport
import RunAnywhereLlamaCPP
import RunAnywhereTestSupport
import Synchronization
import Testing

@_spi(Backend) @testable import RunAnywhere

/// Tool calls and reasoning in a model's own syntax, end to end on a real model: SmolLM2 (a
/// ChatML model) loaded under Qwen 2.5's template, which writes tools and `<tool_call>` turns in
/// the same ChatML, so the model's template, llama.cpp's call grammar and its parser all take
/// part; and under QwQ's template, which opens a `<think>` block for the model.
@Suite("Tool calls and reasoning in the model's own syntax", .serialized, .wholeMachine, .tags(.realEngine))
struct TemplateToolCallingTests {
    static let weather = NativeToolFormatTests.weather

    static func template(_ name: String) throws -> String {
        try #require(try ChatTemplateTests.sdistTemplates().first { $0.name == name }).source
    }

    /// An SDK with SmolLM2 loaded under the sdist's template `name`.
    func withTemplate<T>(_ name: String, _ body: (RunAnywhereSDK) async throws -> T) async throws -> T {
        let source = try Self.template(name)
        return try await withSDK(models: [DefaultModels.llmId]) { sdk in
            try await sdk.loadModel(DefaultModels.llmId, chatTemplate: source)
            return try await body(sdk)
        }
    }

    func ask(
        _ sdk: RunAnywhereSDK,
        _ choice: ToolChoice,
        maxTokens: Int,
        parallel: Int = 4
    ) async throws -> ToolCallingResult {
        try await sdk.generateWithTools(
            "What is the weather in Oslo?",
            tools: [Self.weather],
            options: LLMGenerationOptions(maxTokens: maxTokens, temperature: 0),
            toolOptions: ToolCallingOptions(toolChoice: choice, maxParallelCalls: parallel, executeTools: false)
        )
    }

    /// Each call complete and well typed.
    func expectWellFormed(_ calls: [ToolCall]) {
        for call in calls {
            #expect(call.name == "get_weather")
            #expect(call.arguments["city"]?.stringValue?.isEmpty == false, "\(call)")
        }
    }

    @Test("A required call is written in the template's own syntax, under its grammar, and read back by its parser")
    func requiredCall() async throws {
        try await withTemplate("Qwen-Qwen2.5-7B-Instruct.jinja") { sdk in
            let prompt = try await sdk.formatPrompt([.user("What is the weather in Oslo?")], tools: [Self.weather])
            // Qwen 2.5's own tool section, not the SDK's Hermes prompt.
            #expect(prompt.contains("# Tools\n\nYou may call one or more functions") && prompt.contains("get_weather"))
            let result = try await ask(sdk, .required, maxTokens: 200)
            print("template call:", result.generation.rawText.debugDescription)
            #expect(result.callSyntax == "template:peg-native")
            #expect(result.generation.rawText.hasPrefix("<tool_call>"))
            #expect(result.toolCalls.count >= 1)
            expectWellFormed(result.toolCalls)
            #expect(result.text.isEmpty)
            let last = try #require(result.messages.last)
            #expect(last.role == .assistant && last.toolCalls == result.toolCalls)
        }
    }

    @Test("Output the token limit cuts is no error: complete calls are returned, a cut one is dropped")
    func cutCalls() async throws {
        try await withTemplate("Qwen-Qwen2.5-7B-Instruct.jinja") { sdk in
            var cutAfterACall = false
            for limit in [12, 40, 60, 80] {
                let result = try await sdk.generateWithTools(
                    "What is the weather in Oslo and in Paris?",
                    tools: [Self.weather],
                    options: LLMGenerationOptions.tuned(maxTokens: limit, temperature: 0),
                    toolOptions: ToolCallingOptions(toolChoice: .required, executeTools: false)
                )
                let raw = result.generation.rawText
                print("cut at \(limit):", result.generation.finishReason, raw.debugDescription)
                let closed = raw.ranges(of: "</tool_call>").count
                let opened = raw.ranges(of: "<tool_call>").count
                #expect(result.toolCalls.count == closed, "\(result.toolCalls) from \(raw.debugDescription)")
                expectWellFormed(result.toolCalls)
                if opened > closed {
                    #expect(result.generation.finishReason == .length)
                    if closed > 0 { cutAfterACall = true }
                }
                if limit == 12 { #expect(opened == 1 && closed == 0, "the first call is cut") }
            }
            #expect(cutAfterACall, "one limit cuts a second call after a complete one")
        }
    }

    @Test("With parallel calls off a turn holds at most one call")
    func parallelOff() async throws {
        try await withTemplate("Qwen-Qwen2.5-7B-Instruct.jinja") { sdk in
            let result = try await ask(sdk, .required, maxTokens: 120, parallel: 1)
            #expect(result.toolCalls.count == 1)
            expectWellFormed(result.toolCalls)
        }
    }

    @Test("Under auto the answer streams as it is written and the stream's text is the result's")
    func autoStreams() async throws {
        try await withTemplate("Qwen-Qwen2.5-7B-Instruct.jinja") { sdk in
            var streamed = ""
            var final: ToolCallingResult?
            let stream = try sdk.generateWithToolsStream(
                messages: [.user("Say hello to Oslo.")],
                tools: [Self.weather],
                options: LLMGenerationOptions(maxTokens: 40, temperature: 0),
                toolOptions: ToolCallingOptions(executeTools: false)
            )
            var pieces = 0
            for try await event in stream {
                switch event {
                case .token(let text):
                    streamed += text
                    pieces += 1
                case .completed(let result): final = result
                default: break
                }
            }
            let result = try #require(final)
            #expect(result.callSyntax == "template:peg-native")
            #expect(!streamed.contains("<tool_call>"))
            if result.toolCalls.isEmpty {
                #expect(pieces > 1)
                #expect(streamed.trimmingCharacters(in: .whitespacesAndNewlines) == result.text)
            }
        }
    }

    @Test("The loop runs the tool and the template writes its result back for the next turn")
    func toolResultRoundTrip() async throws {
        try await withTemplate("Qwen-Qwen2.5-7B-Instruct.jinja") { sdk in
            try sdk.registerTool(Self.weather) { arguments in
                ["city": arguments["city"] ?? .null, "temperature_c": 18]
            }
            let result = try await sdk.generateWithTools(
                "What is the weather in Oslo?",
                tools: [Self.weather],
                options: LLMGenerationOptions(maxTokens: 80, temperature: 0),
                toolOptions: ToolCallingOptions(toolChoice: .required, maxIterations: 2)
            )
            #expect(result.toolResults.first?.output?["temperature_c"] == .integer(18))
            let answered = try #require(result.messages.first { $0.role == .tool })
            #expect(answered.toolCallId == result.toolCalls.first?.id)
            let prompt = try await sdk.formatPrompt(result.messages, tools: [Self.weather])
            #expect(prompt.contains("<tool_response>"))
        }
    }

    @Test("A model whose template writes no tools keeps the SDK's own call format")
    func ownFormatWithoutTemplateTools() async throws {
        try await withSDK(models: [DefaultModels.llmId]) { sdk in
            try await sdk.loadModel(DefaultModels.llmId)
            let result = try await ask(sdk, .required, maxTokens: 60)
            #expect(result.callSyntax == ToolCallFormat.generic.rawValue)
            #expect(result.toolCalls.count >= 1)
        }
    }

    @Test("Reasoning a template opens is kept apart from the answer, streamed as reasoning, and off when asked")
    func reasoning() async throws {
        try await withTemplate("Qwen-QwQ-32B.jinja") { sdk in
            var thinking = ""
            var answer = ""
            var final: LLMGenerationResult?
            let on = LLMGenerationOptions(maxTokens: 24, temperature: 0, reasoning: .on)
            for try await event in try await sdk.chatStream([.user("What is two plus two?")], options: on) {
                switch event {
                case .token(let text, let isThinking):
                    if isThinking { thinking += text } else { answer += text }
                case .completed(let result): final = result
                }
            }
            let result = try #require(final)
            print("reasoning on:", result.rawText.debugDescription)
            let written = try #require(result.thinkingText)
            #expect(!written.isEmpty)
            #expect(thinking.trimmingCharacters(in: .whitespacesAndNewlines) == written)
            #expect(answer == result.text)
            #expect(!result.text.contains("<think>") && !result.text.contains("</think>"))

            let off = try await sdk.chat(
                [.user("What is two plus two?")],
                options: LLMGenerationOptions(maxTokens: 24, temperature: 0, reasoning: .off)
            )
            print("reasoning off:", off.rawText.debugDescription)
            #expect(off.thinkingText == nil)
            #expect(!off.text.isEmpty)
        }
    }

    @Test("A special token the call syntax names stays in the output as text; otherwise it adds none")
    func preservedTokens() async throws {
        try await withSDK(models: [DefaultModels.llmId]) { sdk in
            try await sdk.loadModel(DefaultModels.llmId)
            // The grammar makes SmolLM2 write its special `<|im_start|>` token, then a word.
            var options = LLMGenerationOptions(
                maxTokens: 8,
                temperature: 0,
                applyChatTemplate: false,
                grammar: LLMGrammar(#"root ::= "<|im_start|>" "assistant""#)
            )
            let prompt = "<|im_start|>user\nHi<|im_end|>\n"
            let plain = try await sdk.generate(prompt, options: options)
            options.preservedTokens = ["<|im_start|>"]
            let kept = try await sdk.generate(prompt, options: options)
            #expect(plain.generatedTokens == kept.generatedTokens)
            #expect(plain.rawText == "assistant")
            #expect(kept.rawText == "<|im_start|>assistant")
        }
    }
}
