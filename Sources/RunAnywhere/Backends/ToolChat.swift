/// A conversation with tools for a backend to write in the model's own tool-call syntax
/// (``LLMService/prepareToolChat(_:)``).
@_spi(Backend) public struct ToolChatRequest: Sendable {
    /// The conversation, oldest first: assistant turns with their calls, tool turns with the
    /// id of the call they answer.
    public var messages: [ChatMessage]
    /// The tools the model may call.
    public var tools: [ToolDefinition]
    /// `.none`, `.auto` or `.required` (for a named tool, ``tools`` holds only that one).
    public var toolChoice: ToolChoice
    /// Whether one turn may hold more than one call.
    public var parallelToolCalls: Bool
    /// The caller's reasoning choice (`nil`: the template's default).
    public var reasoning: ReasoningMode?

    /// Creates a request.
    public init(
        messages: [ChatMessage],
        tools: [ToolDefinition],
        toolChoice: ToolChoice,
        parallelToolCalls: Bool,
        reasoning: ReasoningMode?
    ) {
        self.messages = messages
        self.tools = tools
        self.toolChoice = toolChoice
        self.parallelToolCalls = parallelToolCalls
        self.reasoning = reasoning
    }
}

/// A ``ToolChatRequest`` as the backend's chat layer prepared it: the prompt, the grammar of
/// the model's call syntax, and the parser of its output.
@_spi(Backend) public struct ToolChatPlan: Sendable {
    /// The prompt, the tools written into it by the template.
    public var prompt: String
    /// The name of the call syntax (llama.cpp's format name).
    public var syntax: String
    /// The call syntax as a grammar (lazy under `.auto`); `nil` leaves the output free.
    public var grammar: LLMGrammar?
    /// Special tokens of the syntax, which the output must keep as text for the parser.
    public var preservedTokens: [String] = []
    /// Texts that end the model's turn in this syntax, besides its end-of-turn token.
    public var additionalStops: [String] = []
    /// Reads the model's output: its answer, reasoning and calls. With `partial`, the output
    /// may be unfinished (streaming, or cut by the token limit): a call still being written
    /// is left out rather than refused.
    public var parse: @Sendable (_ output: String, _ partial: Bool) throws(SDKException) -> ParsedReply

    /// Creates a plan.
    public init(
        prompt: String,
        syntax: String,
        grammar: LLMGrammar?,
        parse: @escaping @Sendable (_ output: String, _ partial: Bool) throws(SDKException) -> ParsedReply
    ) {
        self.prompt = prompt
        self.syntax = syntax
        self.grammar = grammar
        self.parse = parse
    }
}
