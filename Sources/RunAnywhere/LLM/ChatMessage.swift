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

    /// Creates a message.
    public init(role: Role, content: String) {
        self.role = role
        self.content = content
    }

    /// A system message.
    public static func system(_ content: String) -> ChatMessage { ChatMessage(role: .system, content: content) }
    /// A user message.
    public static func user(_ content: String) -> ChatMessage { ChatMessage(role: .user, content: content) }
    /// An assistant message.
    public static func assistant(_ content: String) -> ChatMessage { ChatMessage(role: .assistant, content: content) }
}
