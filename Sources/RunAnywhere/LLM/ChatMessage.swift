/// One turn of a conversation.
public struct ChatMessage: Sendable, Codable, Equatable {
    /// Who speaks.
    public enum Role: String, Sendable, Codable, CaseIterable {
        /// Instructions that set up the conversation.
        case system
        /// What the person said.
        case user
        /// What the model answered.
        case assistant
        /// The output of a tool the model called.
        case tool
    }

    /// Who speaks this turn.
    public var role: Role
    /// The text of the turn.
    public var content: String
    /// The tool calls an assistant turn made (OpenAI's `tool_calls`). Before the model sees
    /// the turn they are written in its own tool-call format after `content`.
    public var toolCalls: [ToolCall]?
    /// For a `.tool` turn, the id of the call it answers (OpenAI's `tool_call_id`). Such a
    /// turn's content is wrapped the way the model's tool-call format expects results.
    public var toolCallId: String?
    /// Images that go with a user turn, shown to a vision-language model before the turn's
    /// text (``RunAnywhereSDK/loadVLMModel(_:contextLength:threads:)``). A conversation with
    /// images runs on the loaded VLM; a language model without a vision projector refuses it.
    public var images: [VLMImage]?

    /// Creates a message.
    public init(
        role: Role,
        content: String,
        toolCalls: [ToolCall]? = nil,
        toolCallId: String? = nil,
        images: [VLMImage]? = nil
    ) {
        self.role = role
        self.content = content
        self.toolCalls = toolCalls
        self.toolCallId = toolCallId
        self.images = images
    }

    /// A system message.
    public static func system(_ content: String) -> ChatMessage { ChatMessage(role: .system, content: content) }
    /// A user message.
    public static func user(_ content: String) -> ChatMessage { ChatMessage(role: .user, content: content) }
    /// A user message with images, for a vision-language model.
    public static func user(_ content: String, images: [VLMImage]) -> ChatMessage {
        ChatMessage(role: .user, content: content, images: images)
    }
    /// An assistant message.
    public static func assistant(_ content: String) -> ChatMessage { ChatMessage(role: .assistant, content: content) }
}
