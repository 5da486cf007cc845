/// Whether and which tool the model must call.
public enum ToolChoice: Sendable, Codable, Equatable, CustomStringConvertible {
    /// The model decides: it answers in text, or calls a tool (a lazy grammar types the call).
    case auto
    /// No tool: the model answers in text.
    case none
    /// The model must call some tool first.
    case required
    /// The model must call this tool first.
    case tool(String)

    /// Parses `auto`, `none`, `required`, or a tool name.
    public init(parsing text: String) {
        switch text {
        case "auto": self = .auto
        case "none": self = .none
        case "required": self = .required
        default: self = .tool(text)
        }
    }

    /// `auto`, `none`, `required`, or the tool's name.
    public var description: String {
        switch self {
        case .auto: "auto"
        case .none: "none"
        case .required: "required"
        case .tool(let name): name
        }
    }

    /// Decodes from the text form.
    public init(from decoder: any Decoder) throws {
        self.init(parsing: try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes as the text form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
