/// The outcome of a tool-calling loop.
public struct ToolCallingResult: Sendable, Codable, Equatable {
    /// The model's final answer in text (empty when the loop stopped at a call).
    public var text: String
    /// Every call the model made, in order.
    public var toolCalls: [ToolCall]
    /// Every result fed back, in the order of ``toolCalls`` (empty when tools were not executed).
    public var toolResults: [ToolResult]
    /// How each call's tool was chosen.
    public var selections: [ToolSelection]
    /// Model turns taken.
    public var iterations: Int
    /// Whether the loop stopped because ``ToolCallingOptions/maxIterations`` ran out.
    public var reachedMaxIterations: Bool
    /// The conversation as the model saw it, ending with its last turn.
    public var messages: [ChatMessage]
    /// The last turn's generation metrics.
    public var generation: LLMGenerationResult
    /// How the calls were written: `template:` and llama.cpp's name for the model's own syntax
    /// (its chat template wrote the tools, e.g. `template:peg-native`), else the
    /// ``ToolCallFormat`` the SDK wrote them in (`hermes`, `llama3`, `generic`); `remote` when a
    /// server called the tools natively.
    public var callSyntax: String?

    /// Creates a result; the tool-calling loop makes these.
    public init(
        text: String,
        toolCalls: [ToolCall],
        toolResults: [ToolResult],
        selections: [ToolSelection],
        iterations: Int,
        reachedMaxIterations: Bool,
        messages: [ChatMessage],
        generation: LLMGenerationResult
    ) {
        self.text = text
        self.toolCalls = toolCalls
        self.toolResults = toolResults
        self.selections = selections
        self.iterations = iterations
        self.reachedMaxIterations = reachedMaxIterations
        self.messages = messages
        self.generation = generation
    }

    enum CodingKeys: String, CodingKey {
        case text
        case toolCalls = "tool_calls"
        case toolResults = "tool_results"
        case selections
        case iterations
        case reachedMaxIterations = "reached_max_iterations"
        case messages
        case generation
        case callSyntax = "call_syntax"
    }
}
