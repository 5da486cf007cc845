/// What a tool-calling stream delivers, in order.
public enum ToolCallingEvent: Sendable, Equatable {
    /// Answer text as the model writes it (not the text of calls).
    case token(String)
    /// The model started a call to this tool (its arguments follow).
    case toolCallStarted(name: String)
    /// A piece of a call's arguments as the model writes them, in the formats that write
    /// arguments as JSON (Hermes, Llama 3, generic, json, OpenAI functions, and a model's own
    /// template syntax as its parser reads it): the pieces of one call join into its
    /// arguments' JSON text. `.toolCall` follows with the checked call.
    case toolCallDelta(ToolCallDelta)
    /// A complete call, arguments validated.
    case toolCall(ToolCall)
    /// A tool's result, about to be fed back.
    case toolResult(ToolResult)
    /// The loop ended; always the last event of a stream that did not fail.
    case completed(ToolCallingResult)
}

/// A piece of a call's arguments while the model writes them (``ToolCallingEvent/toolCallDelta(_:)``).
public struct ToolCallDelta: Sendable, Equatable {
    /// The call's place among the calls of its model turn, from 0.
    public var index: Int
    /// The tool called.
    public var name: String
    /// The next piece of the arguments' JSON text.
    public var arguments: String

    /// Creates a delta.
    public init(index: Int, name: String, arguments: String) {
        self.index = index
        self.name = name
        self.arguments = arguments
    }
}
