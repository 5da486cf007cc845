/// How the tool of a call was chosen, with the scores behind the choice.
public struct ToolSelection: Sendable, Codable, Equatable {
    /// The tool chosen.
    public var tool: String
    /// The method that chose it (``ToolRouting/model`` when the model wrote the name, or
    /// when `toolChoice` named the tool).
    public var method: ToolRouting
    /// Each candidate's score under that method (higher is better); empty for `.model`.
    public var scores: [String: Double]

    /// Creates a selection record.
    public init(tool: String, method: ToolRouting, scores: [String: Double] = [:]) {
        self.tool = tool
        self.method = method
        self.scores = scores
    }
}
