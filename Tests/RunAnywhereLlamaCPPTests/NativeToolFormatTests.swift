import Foundation
import RealEngineTestSupport
import RunAnywhereLlamaCPP
import Testing

@_spi(Backend) @testable import RunAnywhere

/// Tool calls in each model's own syntax, through llama.cpp's chat layer: the template writes a
/// call (an assistant turn with `tool_calls`, rendered as the model would have written it) and
/// the parser llama.cpp derives from the same template reads it back.
@Suite("Native tool-call formats write and parse back", .tags(.realEngine))
struct NativeToolFormatTests {
    static let weather = ToolDefinition(
        name: "get_weather",
        description: "The current weather in a city",
        parameters: .object(
            ["city": .string(), "unit": .enumeration(["celsius", "fahrenheit"])],
            required: ["city"]
        )
    )
    // Mistral's templates take only nine-character alphanumeric ids.
    static let call = ToolCall(id: "a1b2c3d4e", name: "get_weather", arguments: ["city": "Oslo", "unit": "celsius"])
    static let question = ChatMessage.user("What is the weather in Oslo?")

    /// The templates llama.cpp recognises whose round trip holds, among them every family
    /// llama-server documents: Hermes, Qwen 2.5 to 3.5, Llama 3.1 to 3.3, Mistral Nemo,
    /// Functionary, DeepSeek R1 and V3.1, Granite 4, GPT-OSS, Kimi K2, GLM, MiniMax, Gemma 4.
    /// (Templates that always open a reasoning block, MiniMax M2 and llama.cpp's DeepSeek R1,
    /// expect reasoning before the call, which a history turn does not carry: they are left out.)
    static let families = [
        "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja", "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja",
        "Qwen-Qwen2.5-7B-Instruct.jinja", "Qwen-Qwen3-0.6B.jinja", "Qwen-QwQ-32B.jinja", "Qwen3-Coder.jinja",
        "Qwen3.5-4B.jinja", "meta-llama-Llama-3.1-8B-Instruct.jinja", "meta-llama-Llama-3.2-3B-Instruct.jinja",
        "meta-llama-Llama-3.3-70B-Instruct.jinja", "mistralai-Mistral-Nemo-Instruct-2407.jinja",
        "unsloth-mistral-Devstral-Small-2507.jinja", "meetkai-functionary-medium-v3.1.jinja",
        "meetkai-functionary-medium-v3.2.jinja", "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja",
        "deepseek-ai-DeepSeek-V3.1.jinja", "ibm-granite-granite-4.0.jinja",
        "openai-gpt-oss-120b.jinja", "moonshotai-Kimi-K2.jinja", "GLM-4.6.jinja", "MiniMax-M1.jinja",
        "google-gemma-4-31B-it.jinja", "fireworks-ai-llama-3-firefunction-v2.jinja",
    ]

    enum Outcome: Equatable {
        case roundTrip
        case notWritten  // the template leaves tool calls in the history out
        case failed(String)
    }

    /// What the model would write to call the tool, and the chat prepared for the question;
    /// else why there is none.
    enum Written {
        case text(PreparedChat, String)
        case none(Outcome)
    }

    /// Prepares the question with the tool, renders the finished turn that calls it, cuts
    /// the model's part out of that text, and parses it back.
    static func roundTrip(_ template: ChatTemplate) throws -> Outcome {
        let prepared: PreparedChat
        let text: String
        switch try written(template) {
        case .none(let outcome): return outcome
        case .text(let chat, let output): (prepared, text) = (chat, output)
        }
        let reply: ParsedReply
        do {
            reply = try prepared.parse(text)
        } catch {
            return .failed("\(error.message) [\(text.prefix(160).debugDescription)]")
        }
        guard reply.toolCalls.map(\.name) == [call.name], reply.toolCalls.first?.arguments == call.arguments else {
            return .failed("read back \(reply.toolCalls)")
        }
        return .roundTrip
    }

    /// The call as the model would write it: the finished turn that calls the tool, rendered
    /// by the template, with the prompt and the turn's closing cut off.
    static func written(_ template: ChatTemplate) throws -> Written {
        // Thinking off: the finished turn in the history carries no reasoning either.
        let thinkingOff: [String: JSONValue] = ["enable_thinking": false]
        let prepared = try template.prepare(
            messages: [question],
            tools: [weather],
            options: ChatTemplateOptions(variables: thinkingOff)
        )
        let finished = ChatTemplateOptions(addGenerationPrompt: false, variables: thinkingOff)
        let called = try template.prepare(
            messages: [question, ChatMessage(role: .assistant, content: "", toolCalls: [call])],
            tools: [weather],
            options: finished
        ).prompt
        // A plain answer shows where the assistant's part starts and what closes the turn.
        let marker = "XYZZY"
        let plain = try template.prepare(messages: [question, .assistant(marker)], tools: [weather], options: finished)
            .prompt
        guard let markerRange = plain.range(of: marker) else { return .none(.failed("no plain answer")) }
        var output: Substring
        if called.hasPrefix(prepared.prompt) {
            output = called.dropFirst(prepared.prompt.count)
        } else if called.hasPrefix(plain[..<markerRange.lowerBound]) {
            output = called.dropFirst(plain[..<markerRange.lowerBound].count)
        } else {
            return .none(.failed("the finished turn does not continue the prompt"))
        }
        let closing = plain[markerRange.upperBound...]
        if !closing.isEmpty, output.hasSuffix(closing) { output = output.dropLast(closing.count) }
        // The model stops at its end-of-turn token, which is not part of its output.
        // (Leading space is the format's own: GPT-OSS writes " to=functions.…".)
        while output.last?.isWhitespace == true { output.removeLast() }
        let text = String(output).replacing(/(<\|[^|]*\|>|<｜[^｜]*｜>|<\/s>)+$/, with: "")
        guard !text.isEmpty else { return .none(.notWritten) }
        return .text(prepared, text)
    }

    @Test("A call in each family's own syntax streams its arguments in pieces that join into the call's")
    func argumentsStream() throws {
        let sources = try ChatTemplateTests.sdistTemplates().filter { Self.families.contains($0.name) }
        var streamed: [String] = []
        var whole: [String] = []
        for source in sources {
            let template = try ChatTemplate(source: source.source)
            guard try Self.roundTrip(template) == .roundTrip,
                case .text(let prepared, let text) = try Self.written(template)
            else { continue }
            var tracker = ToolCallDeltaTracker()
            var pieces: [ToolCallDelta] = []
            var output = ""
            for character in text {
                output.append(character)
                if let partial = try? prepared.parse(output, partial: true) {
                    pieces += tracker.deltas(of: partial.written)
                }
            }
            pieces += tracker.deltas(of: try prepared.parse(text).written)
            let joined = pieces.map(\.arguments).joined()
            #expect(pieces.allSatisfy { $0.index == 0 && $0.name == Self.call.name }, "\(source.name)")
            #expect((try? JSONValue(parsing: joined)) == Self.call.arguments, "\(source.name): \(joined)")
            if pieces.count > 1 { streamed.append(source.name) } else { whole.append(source.name) }
        }
        print("arguments streamed in pieces: \(streamed.count) families; whole: \(whole)")
        #expect(streamed.count >= sources.count / 2, "streamed \(streamed), whole \(whole)")
    }

    @Test("Every format llama-server reads writes a call that parses back to the same call")
    func roundTrips() throws {
        var outcomes: [String: Outcome] = [:]
        for (name, source) in try ChatTemplateTests.sdistTemplates() {
            let template = try ChatTemplate(source: source, bosToken: "<s>", eosToken: "</s>")
            do {
                outcomes[name] = try Self.roundTrip(template)
            } catch {
                outcomes[name] = .failed("\(error)")
            }
        }
        let passed = outcomes.filter { $0.value == .roundTrip }.keys.sorted()
        let unwritten = outcomes.filter { $0.value == .notWritten }.keys.sorted()
        print(
            "native tool calls: \(passed.count) of \(outcomes.count) templates round-trip; \(unwritten.count) write no calls"
        )
        for (name, outcome) in outcomes.sorted(by: { $0.key < $1.key }) where outcome != .roundTrip {
            print("  \(name): \(outcome)")
        }
        for family in Self.families {
            #expect(outcomes[family] == .roundTrip, "\(family): \(String(describing: outcomes[family]))")
        }
        #expect(passed.count >= 54)
    }

    @Test("A Hermes-style call is read as it streams: text first, the call once whole, reasoning kept apart")
    func partialAndReasoning() throws {
        let source = try #require(try ChatTemplateTests.sdistTemplates().first { $0.name == "Qwen-Qwen3-0.6B.jinja" })
        let template = try ChatTemplate(source: source.source)
        let prepared = try template.prepare(messages: [Self.question], tools: [Self.weather])
        #expect(prepared.supportsThinking)
        #expect(prepared.grammar?.contains("get_weather") == true)
        #expect(prepared.prompt.contains(#""name": "get_weather""#))
        let whole =
            "<think>\nThe user wants Oslo's weather.\n</think>\n\nLet me check.\n<tool_call>\n"
            + #"{"name": "get_weather", "arguments": {"city": "Oslo"}}"# + "\n</tool_call>"
        let reply = try prepared.parse(whole)
        #expect(reply.reasoning?.trimmingCharacters(in: .whitespacesAndNewlines) == "The user wants Oslo's weather.")
        #expect(reply.content.trimmingCharacters(in: .whitespacesAndNewlines) == "Let me check.")
        #expect(reply.toolCalls.map(\.name) == ["get_weather"])
        #expect(reply.toolCalls.first?.arguments == ["city": "Oslo"])
        // Cut inside the call: while streaming, what is unfinished is left out, not refused.
        let cut = String(whole.prefix(whole.count - 30))
        let streaming = try prepared.parse(cut, partial: true)
        #expect(
            streaming.reasoning?.trimmingCharacters(in: .whitespacesAndNewlines) == "The user wants Oslo's weather."
        )
        #expect(streaming.toolCalls.allSatisfy { $0.name == "get_weather" })
        // Finished output that breaks the format is a typed error.
        let broken = try #require(throws: SDKException.self) {
            try prepared.parse("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": ")
        }
        #expect(broken.code == .invalidStructuredOutput)
    }
}
