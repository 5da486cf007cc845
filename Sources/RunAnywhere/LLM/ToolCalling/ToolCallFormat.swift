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
public enum ToolCallFormat: String, Sendable, Codable, CaseIterable {
    /// Hermes-style tagged calls.
    case hermes
    /// Llama 3.x JSON calls.
    case llama3
    /// Tagged calls with a plain-words tool list.
    case generic

    /// The format a chat template asks for; ``generic`` when it names none.
    public static func detect(chatTemplate: String?) -> ToolCallFormat {
        guard let template = chatTemplate else { return .generic }
        if template.contains("<tool_call>") { return .hermes }
        if template.contains("<|python_tag|>") || template.contains("ipython") { return .llama3 }
        return .generic
    }

    /// The text that starts a call; it wakes the lazy grammar.
    var openTag: String {
        switch self {
        case .hermes, .generic: "<tool_call>"
        case .llama3: #"{"name":"#
        }
    }

    private var closeTag: String {
        switch self {
        case .hermes, .generic: "</tool_call>"
        case .llama3: ""
        }
    }

    /// The member that holds the arguments.
    private var argumentsKey: String { self == .llama3 ? "parameters" : "arguments" }

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
            let lines = tools.map { tool in
                "- \(tool.name): \(tool.description) Arguments: \(JSONSchemaOutline.outline(tool.parameters))"
            }
            return """
                You can call these tools:
                \(lines.joined(separator: "\n"))
                To call a tool, reply with <tool_call>{"name": "<tool name>", "arguments": {<arguments>}}</tool_call>. \
                Otherwise answer the user directly.
                """
        }
    }

    /// The JSON Schema of one call object naming one of `tools`.
    func callSchema(_ tools: [ToolDefinition]) -> JSONSchema {
        let calls = tools.map { tool in
            JSONSchema.object(
                orderedProperties: [
                    (name: "name", schema: .constant(.string(tool.name))),
                    (name: argumentsKey, schema: tool.parameters),
                ],
                required: ["name", argumentsKey]
            )
        }
        return calls.count == 1 ? calls[0] : .anyOf(calls)
    }

    /// A grammar for up to `maxCalls` calls to `tools`, starting at the open tag. Lazy
    /// grammars wait for the open tag; others start with it.
    func grammar(tools: [ToolDefinition], maxCalls: Int, lazy: Bool) throws(SDKException) -> LLMGrammar {
        let compiled = try JSONSchemaGrammar(callSchema(tools), options: JSONSchemaGrammar.Options(strictObjects: true))
        let block: String
        switch self {
        case .hermes, .generic:
            block = #""<tool_call>" "\n"? root "\n"? "</tool_call>""#
        case .llama3:
            block = "root"
        }
        let more = maxCalls > 1 ? #" ("\n" "# + block + " ){0,\(maxCalls - 1)}" : ""
        let gbnf = compiled.grammar.gbnf + "\nx-tool-calls-0 ::= " + block + more + "\n"
        return lazy
            ? .lazy(gbnf, root: "x-tool-calls-0", triggeredBy: [openTag])
            : LLMGrammar(gbnf, root: "x-tool-calls-0")
    }

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
    /// well formed is dropped and counted, and the complete ones are kept.
    func parse(_ text: String) -> ParsedOutput {
        guard let first = text.firstRange(of: openTag) else {
            return ParsedOutput(content: text, calls: [], dropped: 0)
        }
        var output = ParsedOutput(content: String(text[..<first.lowerBound]), calls: [], dropped: 0)
        var rest = text[first.lowerBound...]
        while let open = rest.firstRange(of: openTag) {
            let bodyStart = self == .llama3 ? open.lowerBound : open.upperBound
            let bodyEnd: String.Index
            let next: String.Index
            if closeTag.isEmpty {
                bodyEnd = Self.endOfJSONObject(in: rest[bodyStart...]) ?? rest.endIndex
                next = bodyEnd
            } else if let close = rest[bodyStart...].firstRange(of: closeTag) {
                bodyEnd = close.lowerBound
                next = close.upperBound
            } else {
                // Unclosed: the output ended inside it.
                output.dropped += 1
                break
            }
            rest = rest[next...]
            let body = text[bodyStart..<bodyEnd].trimmed()
            guard let value = try? JSONValue(parsing: body), let name = value["name"]?.stringValue,
                value[argumentsKey].map({ $0.objectValue != nil }) ?? true
            else {
                output.dropped += 1
                continue
            }
            output.calls.append((name, value[argumentsKey] ?? .object([:])))
        }
        return output
    }

    /// Where the JSON object that starts `text` ends (after its closing brace).
    private static func endOfJSONObject(in text: Substring) -> String.Index? {
        var depth = 0
        var inString = false
        var escaped = false
        for index in text.indices {
            let character = text[index]
            if inString {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
                continue
            }
            switch character {
            case "\"": inString = true
            case "{": depth += 1
            case "}":
                depth -= 1
                if depth == 0 { return text.index(after: index) }
            default: break
            }
        }
        return nil
    }

    /// The assistant turn that records `calls`, as the model would have written it.
    func assistantMessage(content: String, calls: [ToolCall]) -> ChatMessage {
        let written = calls.map { call in
            let object: JSONValue = ["name": .string(call.name), argumentsKey: call.arguments]
            return closeTag.isEmpty ? object.jsonText() : "\(openTag)\n\(object.jsonText())\n\(closeTag)"
        }
        let prefix = content.trimmed()
        return .assistant((prefix.isEmpty ? "" : prefix + "\n") + written.joined(separator: "\n"))
    }

    /// The tool turn that feeds `result` back.
    func toolMessage(_ result: ToolResult) -> ChatMessage {
        toolMessage(content: result.messageContent)
    }

    private func toolMessage(content: String) -> ChatMessage {
        switch self {
        case .hermes, .generic:
            ChatMessage(role: .tool, content: "<tool_response>\n\(content)\n</tool_response>")
        case .llama3:
            ChatMessage(role: .tool, content: content)
        }
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
                return toolMessage(content: message.content)
            }
            return ChatMessage(role: message.role, content: message.content, images: message.images)
        }
    }
}
