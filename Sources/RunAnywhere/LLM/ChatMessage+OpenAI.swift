import RunAnywhereJSON

extension ChatMessage {
    /// Reads an OpenAI-style chat message: `role` (`system`, `developer`, `user`, `assistant`
    /// or `tool`), `content` as a string, text parts or null (an assistant turn that only calls
    /// tools), an assistant's `tool_calls` (arguments as JSON text or an object) and a tool
    /// turn's `tool_call_id`.
    ///
    /// - Throws: `.invalidInput` naming what is missing or malformed.
    public init(openAI value: JSONValue) throws(SDKException) {
        guard let roleName = value["role"]?.stringValue else {
            throw SDKException(.invalidInput, "A message has no \"role\" string")
        }
        let role: Role
        switch roleName {
        case "system", "developer": role = .system
        case "user": role = .user
        case "assistant": role = .assistant
        case "tool": role = .tool
        default:
            throw SDKException(
                .invalidInput,
                "Unknown role '\(roleName)': expected system, developer, user, assistant or tool"
            )
        }
        let content: String
        switch value["content"] {
        case .string(let text):
            content = text
        case .array(let parts):
            var texts: [String] = []
            for part in parts {
                guard part["type"]?.stringValue == "text", let text = part["text"]?.stringValue else {
                    throw SDKException(.invalidInput, "A \(roleName) message's content parts must be text parts")
                }
                texts.append(text)
            }
            content = texts.joined(separator: "\n")
        case .none, .null:
            guard role == .assistant, value["tool_calls"]?.arrayValue?.isEmpty == false else {
                throw SDKException(.invalidInput, "A \(roleName) message has no \"content\"")
            }
            content = ""
        default:
            throw SDKException(.invalidInput, "A message's \"content\" must be a string, text parts or null")
        }
        var calls: [ToolCall] = []
        for call in value["tool_calls"]?.arrayValue ?? [] {
            guard let id = call["id"]?.stringValue, let name = call["function"]?["name"]?.stringValue else {
                throw SDKException(.invalidInput, "A tool call needs an \"id\" and a \"function\" with a \"name\"")
            }
            var arguments = call["function"]?["arguments"] ?? .object([:])
            if case .string(let text) = arguments {
                do {
                    arguments = try JSONValue(parsing: text.isEmpty ? "{}" : text)
                } catch {
                    throw SDKException(.invalidInput, "The arguments of tool call '\(id)' are not JSON")
                }
            }
            calls.append(ToolCall(id: id, name: name, arguments: arguments))
        }
        let callId = value["tool_call_id"]?.stringValue
        if role == .tool && callId == nil {
            throw SDKException(.invalidInput, "A tool message needs a \"tool_call_id\"")
        }
        self.init(role: role, content: content, toolCalls: calls.isEmpty ? nil : calls, toolCallId: callId)
    }

    /// Reads a JSON array of OpenAI-style chat messages (as in a request's `messages`).
    ///
    /// - Throws: `.invalidInput` when the text is not such an array, naming the first bad message.
    public static func list(openAI text: String) throws(SDKException) -> [ChatMessage] {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: text)
        } catch {
            throw SDKException(.invalidInput, "The messages are not JSON: \(error.message)")
        }
        guard let items = value.arrayValue else {
            throw SDKException(.invalidInput, "The messages must be a JSON array of message objects")
        }
        var messages: [ChatMessage] = []
        for (index, item) in items.enumerated() {
            do {
                messages.append(try ChatMessage(openAI: item))
            } catch {
                throw SDKException(.invalidInput, "messages[\(index)]: \(error.message)")
            }
        }
        return messages
    }
}
