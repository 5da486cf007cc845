import RunAnywhereJSON

extension ChatMessage {
    /// Reads an OpenAI-style chat message: `role` (`system`, `developer`, `user`, `assistant`
    /// or `tool`), `content` as a string, content parts or null (an assistant turn that only
    /// calls tools), an assistant's `tool_calls` (arguments as JSON text or an object) and a tool
    /// turn's `tool_call_id`. A user turn's `image_url` (or `input_image`) parts become its
    /// ``images``; they must be `data:` URLs, since nothing is fetched.
    ///
    /// - Throws: `.invalidInput` naming what is missing or malformed.
    public init(openAI value: JSONValue) throws(SDKException) {
        do {
            self = try Self.read(openAI: value)
        } catch {
            throw SDKException(.invalidInput, error.message)
        }
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
                messages.append(try read(openAI: item))
            } catch {
                throw SDKException(.invalidInput, "messages[\(index)]: \(error.message)")
            }
        }
        return messages
    }

    /// Why an OpenAI-style message could not be read: the field at fault (`role`, `content`,
    /// `tool_calls`, `tool_call_id`; `nil` for the message itself) and what is wrong, so a
    /// server can name the parameter.
    package struct OpenAIReadError: Error {
        /// The message's field at fault.
        package var field: String?
        /// What is wrong, for people.
        package var message: String
    }

    /// The one reader behind ``init(openAI:)``, with the field at fault in its errors.
    package static func read(openAI value: JSONValue) throws(OpenAIReadError) -> ChatMessage {
        guard case .object = value else {
            throw OpenAIReadError(field: nil, message: "A message must be a JSON object")
        }
        guard let roleName = value["role"]?.stringValue else {
            throw OpenAIReadError(field: "role", message: "A message has no \"role\" string")
        }
        let role: Role
        switch roleName {
        case "system", "developer": role = .system
        case "user": role = .user
        case "assistant": role = .assistant
        case "tool": role = .tool
        default:
            throw OpenAIReadError(
                field: "role",
                message: "Invalid role '\(roleName)': expected system, developer, user, assistant or tool"
            )
        }
        let content: String
        var images: [VLMImage] = []
        switch value["content"] {
        case .string(let text):
            content = text
        case .array(let parts):
            var texts: [String] = []
            for part in parts {
                switch part["type"]?.stringValue {
                case "text":
                    guard let text = part["text"]?.stringValue else {
                        throw OpenAIReadError(field: "content", message: "A text content part needs a \"text\" string")
                    }
                    texts.append(text)
                case "image_url", "input_image":
                    guard role == .user else {
                        throw OpenAIReadError(field: "content", message: "Only a user message may carry images")
                    }
                    images.append(try image(part))
                case let other:
                    throw OpenAIReadError(
                        field: "content",
                        message: "Unsupported content part type '\(other ?? "")': expected text or image_url"
                    )
                }
            }
            content = texts.joined(separator: "\n")
        case .none, .null:
            guard role == .assistant, value["tool_calls"]?.arrayValue?.isEmpty == false else {
                throw OpenAIReadError(field: "content", message: "A \(roleName) message has no \"content\"")
            }
            content = ""
        default:
            throw OpenAIReadError(
                field: "content",
                message: "A message's \"content\" must be a string, content parts or null"
            )
        }
        var calls: [ToolCall] = []
        for call in value["tool_calls"]?.arrayValue ?? [] {
            guard let id = call["id"]?.stringValue, let name = call["function"]?["name"]?.stringValue else {
                throw OpenAIReadError(
                    field: "tool_calls",
                    message: "A tool call needs an \"id\" and a \"function\" with a \"name\""
                )
            }
            guard call["type"] == nil || call["type"]?.stringValue == "function" else {
                throw OpenAIReadError(field: "tool_calls", message: "Only function tool calls are supported")
            }
            var arguments = call["function"]?["arguments"] ?? .object([:])
            if case .string(let text) = arguments {
                do {
                    arguments = try JSONValue(parsing: text.isEmpty ? "{}" : text)
                } catch {
                    throw OpenAIReadError(
                        field: "tool_calls",
                        message: "The arguments of tool call '\(id)' are not JSON"
                    )
                }
            }
            calls.append(ToolCall(id: id, name: name, arguments: arguments))
        }
        let callId = value["tool_call_id"]?.stringValue
        if role == .tool && callId == nil {
            throw OpenAIReadError(field: "tool_call_id", message: "A tool message needs a \"tool_call_id\"")
        }
        return ChatMessage(
            role: role,
            content: content,
            toolCalls: calls.isEmpty ? nil : calls,
            toolCallId: callId,
            images: images.isEmpty ? nil : images
        )
    }

    /// The image of an `image_url` part (`{"url": …}` or the URL itself, as the Responses API
    /// writes `input_image`): base64 in a `data:` URL.
    private static func image(_ part: JSONValue) throws(OpenAIReadError) -> VLMImage {
        let url = part["image_url"]?["url"]?.stringValue ?? part["image_url"]?.stringValue
        guard let url else {
            throw OpenAIReadError(field: "content", message: "An image part needs \"image_url\" with a \"url\"")
        }
        guard url.hasPrefix("data:") else {
            throw OpenAIReadError(
                field: "content",
                message: "Images are read from data: URLs (base64) only; nothing is fetched"
            )
        }
        do {
            return try VLMImage(base64: url)
        } catch {
            throw OpenAIReadError(field: "content", message: error.message)
        }
    }
}
