import Foundation
import RunAnywhere

/// The body of `POST /v1/chat/completions`, as OpenAI defines it. Fields we do not use
/// (`user`, `logit_bias`, `presence_penalty`, …) are ignored; fields we use are type-checked.
struct ChatCompletionRequest: Decodable, Sendable {
    var model: String
    /// Read by the SDK's one reader of OpenAI-style messages (`ChatMessage(openAI:)`).
    var messages: [JSONValue]
    var stream: Bool?
    var streamOptions: StreamOptions?
    var maxTokens: Int?
    var maxCompletionTokens: Int?
    var temperature: Double?
    var topP: Double?
    var seed: Int64?
    var stop: StringOrArray?
    var n: Int?
    var responseFormat: ResponseFormat?
    var tools: [Tool]?
    var toolChoice: ToolChoiceValue?
    /// False: at most one tool call per reply (OpenAI's `parallel_tool_calls`; default true).
    var parallelToolCalls: Bool?
    /// llama-server's extension: keep generating past end-of-sequence (for benchmarks).
    var ignoreEos: Bool?
    /// OpenAI's reasoning effort: `none` answers directly, any other effort reasons first.
    var reasoningEffort: String?
    /// llama-server's extension: the chat template's variables; `enable_thinking` is read.
    var chatTemplateKwargs: TemplateVariables?

    enum CodingKeys: String, CodingKey {
        case model, messages, stream, temperature, seed, stop, n, tools
        case streamOptions = "stream_options"
        case maxTokens = "max_tokens"
        case maxCompletionTokens = "max_completion_tokens"
        case topP = "top_p"
        case responseFormat = "response_format"
        case toolChoice = "tool_choice"
        case parallelToolCalls = "parallel_tool_calls"
        case ignoreEos = "ignore_eos"
        case reasoningEffort = "reasoning_effort"
        case chatTemplateKwargs = "chat_template_kwargs"
    }

    /// The template variables the server reads.
    struct TemplateVariables: Decodable, Sendable {
        var enableThinking: Bool?

        enum CodingKeys: String, CodingKey {
            case enableThinking = "enable_thinking"
        }
    }

    /// Whether the model reasons first: `chat_template_kwargs.enable_thinking` when given, else
    /// `reasoning_effort` (`none` off, any other effort on), else the model's default.
    func reasoning() throws(OpenAIError) -> ReasoningMode? {
        if let thinking = chatTemplateKwargs?.enableThinking { return thinking ? .on : .off }
        guard let effort = reasoningEffort else { return nil }
        switch effort {
        case "none": return .off
        case "minimal", "low", "medium", "high": return .on
        default:
            throw .invalid(
                "'reasoning_effort' must be none, minimal, low, medium or high (got '\(effort)')",
                param: "reasoning_effort"
            )
        }
    }

    struct StreamOptions: Decodable, Sendable {
        var includeUsage: Bool?

        enum CodingKeys: String, CodingKey {
            case includeUsage = "include_usage"
        }
    }

    struct ResponseFormat: Decodable, Sendable {
        var type: String
        var jsonSchema: JSONSchemaFormat?

        enum CodingKeys: String, CodingKey {
            case type
            case jsonSchema = "json_schema"
        }

        struct JSONSchemaFormat: Decodable, Sendable {
            var name: String
            var schema: JSONValue?
            var strict: Bool?
        }
    }

    struct Tool: Decodable, Sendable {
        var type: String
        var function: Function

        struct Function: Decodable, Sendable {
            var name: String
            var description: String?
            var parameters: JSONValue?
        }
    }

    /// `"none"`, `"auto"`, `"required"`, or `{"type": "function", "function": {"name": …}}`.
    enum ToolChoiceValue: Decodable, Sendable {
        case mode(String)
        case function(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let mode = try? container.decode(String.self) {
                self = .mode(mode)
            } else {
                let named = try container.decode(Named.self)
                guard named.type == nil || named.type == "function" else {
                    throw DecodingError.dataCorruptedError(
                        in: container,
                        debugDescription: "only function tool choices are supported"
                    )
                }
                self = .function(named.function.name)
            }
        }

        private struct Named: Decodable {
            var type: String?
            var function: Name
            struct Name: Decodable { var name: String }
        }
    }
}

extension ChatCompletionRequest {
    /// The conversation in the SDK's terms, or a 400 naming the message and field at fault.
    /// Each `tool` message must answer a call an earlier assistant message made.
    func conversation() throws(OpenAIError) -> [ChatMessage] {
        var callIds: Set<String> = []
        var result: [ChatMessage] = []
        for (index, value) in messages.enumerated() {
            let param = "messages[\(index)]"
            let message: ChatMessage
            do {
                message = try ChatMessage.read(openAI: value)
            } catch {
                throw .invalid(error.message, param: error.field.map { "\(param).\($0)" } ?? param)
            }
            if let id = message.toolCallId, !callIds.contains(id) {
                throw .invalid(
                    "tool_call_id '\(id)' answers no tool call of an earlier assistant message",
                    param: "\(param).tool_call_id"
                )
            }
            callIds.formUnion(message.toolCalls?.map(\.id) ?? [])
            result.append(message)
        }
        guard !result.isEmpty else { throw .invalid("'messages' must not be empty", param: "messages") }
        return result
    }

    /// The tools in the SDK's terms.
    func toolDefinitions() throws(OpenAIError) -> [ToolDefinition] {
        var definitions: [ToolDefinition] = []
        for (index, tool) in (tools ?? []).enumerated() {
            guard tool.type == "function" else {
                throw .invalid("Only function tools are supported", param: "tools[\(index)].type")
            }
            do {
                let parameters = try JSONSchema(tool.function.parameters ?? ["type": "object", "properties": [:]])
                let definition = ToolDefinition(
                    name: tool.function.name,
                    description: tool.function.description ?? "",
                    parameters: parameters
                )
                try definition.validate()
                definitions.append(definition)
            } catch {
                throw OpenAIError(error, param: "tools[\(index)]")
            }
        }
        return definitions
    }

    /// The tool choice in the SDK's terms.
    func sdkToolChoice() throws(OpenAIError) -> ToolChoice {
        switch toolChoice {
        case .none: return .auto
        case .mode("auto"): return .auto
        case .mode("none"): return .none
        case .mode("required"): return .required
        case .mode(let other):
            throw .invalid("Invalid tool_choice '\(other)': expected none, auto or required", param: "tool_choice")
        case .function(let name): return .tool(name)
        }
    }
}
