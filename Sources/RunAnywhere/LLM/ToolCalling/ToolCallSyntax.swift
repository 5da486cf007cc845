import RunAnywhereGBNF
import RunAnywhereJSON

/// How one ``ToolCallFormat`` writes calls, constrains them with a grammar and reads them
/// back. Each implementation keeps the three in step: what ``write(_:tools:)`` produces,
/// ``grammar(tools:maxCalls:root:)`` accepts and ``parse(_:tools:)`` returns unchanged.
protocol ToolCallSyntax: Sendable {
    /// The text that starts a call; it wakes the lazy grammar.
    var openTag: String { get }

    /// GBNF whose rule `root` matches up to `maxCalls` calls to `tools`, starting at the
    /// open tag.
    func grammar(tools: [ToolDefinition], maxCalls: Int, root: String) throws(SDKException) -> String

    /// What the model writes between the open tag and the first call, whichever the tool.
    var callLead: String { get }

    /// What follows ``callLead`` up to and including `tool`'s name.
    func namePrefix(_ tool: String) -> String

    /// The text before the first call, the complete calls, and how many were dropped.
    func parse(_ text: String, tools: [ToolDefinition]) -> ToolCallFormat.ParsedOutput

    /// `calls` as the model writes them.
    func write(_ calls: [ToolCall], tools: [ToolDefinition]) -> String

    /// A tool's result as the tool turn carries it.
    func response(_ content: String) -> String

    /// The calls begun in `text` (output so far), each with its arguments' JSON text as
    /// written up to now; `nil` when this syntax does not write arguments as JSON.
    func partialCalls(in text: String) -> [PartialToolCall]?
}

/// A call the model is writing: its tool's name once written whole, and its arguments' JSON
/// text so far (whole once `argumentsComplete`).
struct PartialToolCall: Equatable {
    var name: String?
    var arguments = ""
    var argumentsComplete = false
}

extension ToolCallSyntax {
    /// Syntaxes that do not write arguments as JSON stream no argument pieces.
    func partialCalls(in text: String) -> [PartialToolCall]? { nil }

    /// The rule that repeats `block` up to `maxCalls` times, one per line.
    static func repeatedBlocks(_ block: String, maxCalls: Int, root: String) -> String {
        let more = maxCalls > 1 ? #" ("\n" "# + block + " ){0,\(maxCalls - 1)}" : ""
        return "\(root) ::= " + block + more + "\n"
    }

    /// The JSON Schema of each property of `tool`'s parameters, in order, with whether it is
    /// required; `nil` when the parameters name no properties (any arguments are allowed).
    /// Each schema carries the parameters' definitions so its references still resolve.
    static func properties(of tool: ToolDefinition) -> [(name: String, schema: JSONSchema, required: Bool)]? {
        guard let properties = tool.parameters.value["properties"]?.objectValue else { return nil }
        let required = Set(tool.parameters.value["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        var definitions = JSONObject()
        for key in ["$defs", "definitions"] {
            if let value = tool.parameters.value[key] { definitions[key] = value }
        }
        return properties.map { member in
            var schema = member.value
            if case .object(var object) = schema, !definitions.isEmpty {
                for (key, value) in definitions where object[key] == nil { object[key] = value }
                schema = .object(object)
            }
            return (member.key, (try? JSONSchema(schema)) ?? .any, required.contains(member.key))
        }
    }

    /// GBNF for one value of `schema`, its rules named after `prefix` so several can share
    /// one grammar; returns the text and the rule to refer to.
    static func valueGrammar(_ schema: JSONSchema, prefix: String) throws(SDKException) -> (gbnf: String, rule: String)
    {
        let compiled = try JSONSchemaGrammar(schema, options: JSONSchemaGrammar.Options(strictObjects: true))
        return (compiled.rules.gbnf(root: "root", prefix: prefix), prefix + "root")
    }

    /// `text` as a GBNF literal.
    static func literal(_ text: String) -> String { GBNFExpression.literal(text).gbnf }
}
