import RunAnywhereJSON

/// What a tool returned, or why it failed; fed back to the model as a tool message.
public struct ToolResult: Sendable, Codable, Equatable {
    /// The ``ToolCall/id`` this answers.
    public var callId: String
    /// The tool's name.
    public var name: String
    /// The tool's output, when it succeeded.
    public var output: JSONValue?
    /// Why the call failed: the executor threw or timed out, the tool is unknown, or the
    /// arguments did not validate (then the executor was never called).
    public var error: String?

    /// Whether the call failed.
    public var isError: Bool { error != nil }

    /// Creates a result.
    public init(callId: String, name: String, output: JSONValue? = nil, error: String? = nil) {
        self.callId = callId
        self.name = name
        self.output = output
        self.error = error
    }

    /// The text the model sees for this result.
    public var messageContent: String {
        if let error { return JSONValue.object(["error": .string(error)]).jsonText() }
        return (output ?? .null).jsonText()
    }

    enum CodingKeys: String, CodingKey {
        case callId = "call_id"
        case name
        case output
        case error
    }
}
