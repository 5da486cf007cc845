/// How the tool to call is chosen once a call is due.
///
/// Tiny models fill arguments well once the tool is fixed but often pick the wrong tool on
/// their own; a router scores every tool and fixes the name before the model writes the
/// arguments.
public enum ToolRouting: String, Sendable, Codable, CaseIterable {
    /// The model writes the name itself, constrained to the tools' names (its first
    /// token decides).
    case model
    /// The model's own probability of each complete tool name at the point where it would
    /// write it.
    case likelihood
    /// Word overlap between the request and each tool's name, description and parameter
    /// names (BM25-style), with no model call.
    case lexical
    /// Both scores combined (each normalized); the default.
    case hybrid
}
