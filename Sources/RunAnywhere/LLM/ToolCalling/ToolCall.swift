import RunAnywhereJSON

/// A call the model asked for: which tool, with which arguments.
public struct ToolCall: Sendable, Codable, Equatable {
    /// An id that pairs the call with its ``ToolResult``.
    public var id: String
    /// The tool's name.
    public var name: String
    /// The arguments, a JSON object valid against the tool's parameters.
    public var arguments: JSONValue

    /// Creates a call.
    public init(id: String, name: String, arguments: JSONValue) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }
}
