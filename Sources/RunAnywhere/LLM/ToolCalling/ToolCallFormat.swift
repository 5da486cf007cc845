import RunAnywhereJSON

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How calls are written in the model's output and how tools are presented to it.
///
/// - ``hermes``: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, the tools as JSON
///   signatures inside `<tools>…</tools>` (Hermes, Qwen 2.5 and their derivatives).
/// - ``llama3``: a bare `{"name": …, "parameters": {…}}` object (Llama 3.x custom tools).
/// - ``generic``: the Hermes tags with the tools outlined in plain words; for models whose
///   template has no tool format (SmolLM2, for one). It is documented in the README.
/// - ``json``: the original SDK's default, `<tool_call>{"tool": …, "arguments": {…}}</tool_call>`
///   under a `# TOOLS` list; its reader also takes the other key names small models write
///   (`name`, `function`; `args`, `parameters`, `input`).
/// - ``pythonic``: LFM2's Python-style calls, `<|tool_call_start|>[get_weather(city="Oslo"),
///   get_time(zone="CET")]<|tool_call_end|>`; the reader takes Python's `True`, `False`,
///   `None` and single-quoted strings as well as JSON values.
/// - ``openaiFunctions``: OpenAI's function-call object, `{"function_call": {"name": …,
///   "arguments": {…}}}`; the reader also takes the arguments as a JSON string, as OpenAI's
///   API sends them.
/// - ``xml``: `<function_calls><invoke name="…"><parameter name="city">Oslo</parameter>
///   </invoke></function_calls>`: a string argument is the element's text, any other value
///   its JSON.
///
/// Every format is written, constrained by a grammar and read back the same way, so a
/// call the SDK writes into a conversation parses to the same call.
public enum ToolCallFormat: String, Sendable, Codable, CaseIterable {
    /// Hermes-style tagged calls.
    case hermes
    /// Llama 3.x JSON calls.
    case llama3
    /// Tagged calls with a plain-words tool list.
    case generic
    /// The original SDK's tagged JSON calls (`"tool"` and `"arguments"`).
    case json
    /// LFM2's Python-style calls.
    case pythonic
    /// OpenAI's `function_call` objects.
    case openaiFunctions = "openai_functions"
    /// XML invocations.
    case xml

    /// The format a chat template asks for; ``generic`` when it names none.
    public static func detect(chatTemplate: String?) -> ToolCallFormat {
        guard let template = chatTemplate else { return .generic }
        if template.contains("<tool_call>") { return .hermes }
        if template.contains("<|python_tag|>") || template.contains("ipython") { return .llama3 }
        if template.contains("<|tool_call_start|>") { return .pythonic }
        return .generic
    }

    /// The format a hint names, as the original SDK reads its format strings (any case):
    /// `lfm`, `lfm2`, `liquid` and `pythonic` are ``pythonic``; `openai` and
    /// `openai_functions` ``openaiFunctions``; `json` and `default` ``json``; each case's own
    /// name that case. `nil` for `native`, `auto` and anything else: the model's own format.
    public init?(hint: String) {
        let name = hint.lowercased()
        switch name {
        case "lfm", "lfm2", "liquid", "pythonic": self = .pythonic
        case "openai", "openai_functions", "openaifunctions": self = .openaiFunctions
        case "default": self = .json
        default:
            guard let format = ToolCallFormat(rawValue: name) else { return nil }
            self = format
        }
    }

    /// How this format writes, constrains and reads calls.
    var syntax: any ToolCallSyntax {
        switch self {
        case .hermes, .generic: JSONToolCallSyntax(open: "<tool_call>", close: "</tool_call>")
        case .llama3: JSONToolCallSyntax(open: #"{"name":"#, argumentsKey: "parameters", response: .plain)
        case .json: JSONToolCallSyntax(open: "<tool_call>", close: "</tool_call>", nameKey: "tool", lenient: true)
        case .openaiFunctions:
            JSONToolCallSyntax(open: #"{"function_call":"#, wrapperKey: "function_call", response: .plain)
        case .pythonic: PythonicToolCallSyntax()
        case .xml: XMLToolCallSyntax()
        }
    }

    /// The text that starts a call; it wakes the lazy grammar.
    var openTag: String { syntax.openTag }

    /// The system prompt that presents the tools and the call syntax.
    func systemPrompt(tools: [ToolDefinition]) -> String {
        switch self {
        case .hermes:
            let signatures = tools.map { $0.openAIValue.jsonText() }.joined(separator: "\n")
            return """
                You may call one or more functions to assist with the user query. You are provided with \
                function signatures within <tools></tools> XML tags:
                <tools>
                \(signatures)
                </tools>
                For each function call, return a json object with function name and arguments within \
                <tool_call></tool_call> XML tags:
                <tool_call>
                {"name": <function-name>, "arguments": <args-json-object>}
                </tool_call>
                """
        case .llama3:
            let signatures = tools.map { $0.openAIValue.jsonText() }.joined(separator: "\n")
            return """
                You have access to the following functions. To call a function, respond with JSON of the form \
                {"name": function name, "parameters": dictionary of argument name and its value}. \
                Do not use variables.
                \(signatures)
                """
        case .generic:
            return """
                You can call these tools:
                \(Self.outlines(tools, label: "Arguments"))
                To call a tool, reply with <tool_call>{"name": "<tool name>", "arguments": {<arguments>}}</tool_call>. \
                Otherwise answer the user directly.
                """
        case .json:
            return """
                # TOOLS
                \(Self.functionList(tools))

                ## OUTPUT FORMAT
                A tool call has exactly this shape:
                <tool_call>{"tool": "<tool_name>", "arguments": {"<param>": "<value>"}}</tool_call>

                ## RULES
                - Call a tool only when it is needed to answer; otherwise reply normally.
                - Use only the tools listed above, with their exact names and parameters.
                - When you call a tool, wrap it in <tool_call> and </tool_call>.
                """
        case .pythonic:
            return """
                List of tools: <|tool_list_start|>\(Self.functionList(tools))<|tool_list_end|>
                To call tools, write a Python list of calls with keyword arguments between \
                <|tool_call_start|> and <|tool_call_end|>, for example \
                <|tool_call_start|>[tool_name(param="value")]<|tool_call_end|>. Otherwise answer the user directly.
                """
        case .openaiFunctions:
            return """
                You can call these functions:
                \(Self.functionList(tools))
                To call a function, reply with {"function_call": {"name": "<function name>", "arguments": {<arguments>}}}, \
                one object per call. Otherwise answer the user directly.
                """
        case .xml:
            return """
                You can call these tools:
                \(Self.outlines(tools, label: "Parameters"))
                To call tools, write:
                <function_calls>
                <invoke name="tool_name">
                <parameter name="param_name">value</parameter>
                </invoke>
                </function_calls>
                A string value is written as it is; any other value as JSON. Otherwise answer the user directly.
                """
        }
    }

    /// One line per tool in plain words: `- name: description <label>: {outline}`.
    private static func outlines(_ tools: [ToolDefinition], label: String) -> String {
        tools.map { "- \($0.name): \($0.description) \(label): \(JSONSchemaOutline.outline($0.parameters))" }
            .joined(separator: "\n")
    }

    /// The tools as one JSON array of name, description and parameters.
    private static func functionList(_ tools: [ToolDefinition]) -> String {
        JSONValue.array(tools.map { $0.openAIValue["function"] ?? .null }).jsonText()
    }

    /// A grammar for up to `maxCalls` calls to `tools`, starting at the open tag. Lazy
    /// grammars wait for the open tag; others start with it.
    func grammar(tools: [ToolDefinition], maxCalls: Int, lazy: Bool) throws(SDKException) -> LLMGrammar {
        let gbnf = try syntax.grammar(tools: tools, maxCalls: maxCalls, root: "x-tool-calls-0")
        return lazy
            ? .lazy(gbnf, root: "x-tool-calls-0", triggeredBy: [openTag])
            : LLMGrammar(gbnf, root: "x-tool-calls-0")
    }

    /// What the model writes after the open tag before naming a tool, and then up to and
    /// including `tool`'s name: the texts a router compares by likelihood.
    var callLead: String { syntax.callLead }

    /// What follows ``callLead`` up to and including `tool`'s name.
    func namePrefix(_ tool: String) -> String { syntax.namePrefix(tool) }

    /// A lazy grammar that is complete as soon as the open tag is written: the model
    /// stops there, so a router can choose the tool.
    var callIntentGrammar: LLMGrammar {
        .lazy(
            "x-intent-0 ::= " + JSONValue.string(openTag).jsonText() + "\n",
            root: "x-intent-0",
            triggeredBy: [openTag]
        )
    }

    /// What a model's output holds: the text before the first call, each complete call's name
    /// and arguments, and how many calls were dropped.
    struct ParsedOutput {
        /// The text before the first call.
        var content: String
        /// The calls, in the order written.
        var calls: [(name: String, arguments: JSONValue)]
        /// Calls that were cut (by the token limit) or are not a JSON object with a name and
        /// an object of arguments; a grammar makes the second impossible.
        var dropped: Int
    }

    /// The text before the first call, and each call's name and arguments. What the model
    /// wrote is never an error: a call that is not complete (the token limit cut it) or not
    /// well formed is dropped and counted, and the complete ones are kept. `tools` type the
    /// arguments of formats that write strings bare (``xml``).
    func parse(_ text: String, tools: [ToolDefinition] = []) -> ParsedOutput {
        syntax.parse(text, tools: tools)
    }

    /// The assistant turn that records `calls`, as the model would have written it.
    func assistantMessage(content: String, calls: [ToolCall], tools: [ToolDefinition] = []) -> ChatMessage {
        let prefix = content.trimmed()
        return .assistant((prefix.isEmpty ? "" : prefix + "\n") + syntax.write(calls, tools: tools))
    }

    /// The tool turn that feeds `result` back.
    func toolMessage(_ result: ToolResult) -> ChatMessage {
        ChatMessage(role: .tool, content: syntax.response(result.messageContent))
    }

    /// `conversation` as the model reads it: assistant turns with ``ChatMessage/toolCalls``
    /// get their calls written out, and tool turns answering a call id get their content
    /// wrapped; every other turn is unchanged.
    func render(_ conversation: [ChatMessage]) -> [ChatMessage] {
        conversation.map { message in
            if message.role == .assistant, let calls = message.toolCalls, !calls.isEmpty {
                return assistantMessage(content: message.content, calls: calls)
            }
            if message.role == .tool, message.toolCallId != nil {
                return ChatMessage(role: .tool, content: syntax.response(message.content))
            }
            return ChatMessage(role: message.role, content: message.content, images: message.images)
        }
    }
}
