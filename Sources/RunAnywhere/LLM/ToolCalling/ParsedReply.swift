import RunAnywhereJSON

/// An assistant turn read from a model's output in its own format (llama.cpp's chat layer:
/// `PreparedChat.parse(_:partial:)` in RunAnywhereLlamaCPP).
public struct ParsedReply: Sendable, Equatable {
    /// The answer text.
    public var content: String
    /// The reasoning the model wrote apart from the answer, if any.
    public var reasoning: String?
    /// The calls, in order, their arguments parsed; a call's id is the one the model wrote
    /// (Mistral's formats have one), else empty.
    public var toolCalls: [ToolCall]
    /// Every call begun, read or not: its name once written and its arguments' JSON text as
    /// far as it goes (whole but for the last call of partial output). Streams the arguments.
    var written: [PartialToolCall] = []

    /// Reads an OpenAI-style assistant message (`content`, `reasoning_content`, `tool_calls`);
    /// `partial` leaves out a call whose arguments are still being written.
    package init(openAI message: JSONValue, partial: Bool) throws(SDKException) {
        content = message["content"]?.stringValue ?? ""
        reasoning = message["reasoning_content"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let calls = message["tool_calls"]?.arrayValue ?? []
        toolCalls = []
        for (index, call) in calls.enumerated() {
            let name = call["function"]?["name"]?.stringValue ?? ""
            let argumentsText = call["function"]?["arguments"]?.stringValue ?? ""
            written.append(
                PartialToolCall(
                    name: name.isEmpty ? nil : name,
                    arguments: argumentsText,
                    argumentsComplete: !partial || index < calls.count - 1
                )
            )
            // Unfinished output may end inside a call's name: only a call with arguments counts.
            if partial, argumentsText.isEmpty { continue }
            let arguments: JSONValue
            do {
                arguments = try JSONValue(parsing: argumentsText.isEmpty ? "{}" : argumentsText)
            } catch {
                if partial { continue }
                throw SDKException(.invalidStructuredOutput, "The arguments of call \(index) are not JSON")
            }
            let id = call["id"]?.stringValue ?? ""
            toolCalls.append(ToolCall(id: id, name: name, arguments: arguments))
        }
    }
}
