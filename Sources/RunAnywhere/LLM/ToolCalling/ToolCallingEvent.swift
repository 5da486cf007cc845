/// What a tool-calling stream delivers, in order.
public enum ToolCallingEvent: Sendable, Equatable {
    /// Answer text as the model writes it (not the text of calls).
    case token(String)
    /// The model started a call to this tool (its arguments follow).
    case toolCallStarted(name: String)
    /// A complete call, arguments validated.
    case toolCall(ToolCall)
    /// A tool's result, about to be fed back.
    case toolResult(ToolResult)
    /// The loop ended; always the last event of a stream that did not fail.
    case completed(ToolCallingResult)
}
