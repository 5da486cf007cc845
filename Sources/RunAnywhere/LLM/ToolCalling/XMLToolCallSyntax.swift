import RunAnywhereJSON

/// Calls as XML invocations:
///
/// ```
/// <function_calls>
/// <invoke name="get_weather">
/// <parameter name="city">Oslo</parameter>
/// </invoke>
/// </function_calls>
/// ```
///
/// A parameter whose schema is a plain string is written as the element's text (with
/// `&`, `<` and `>` escaped); any other value as its JSON. Reading types each value by its
/// tool's schema the same way.
struct XMLToolCallSyntax: ToolCallSyntax {
    let openTag = "<function_calls>"
    let close = "</function_calls>"
    let callLead = "\n"

    func grammar(tools: [ToolDefinition], maxCalls: Int, root: String) throws(SDKException) -> String {
        var lines: [String] = []
        var invokeRules: [String] = []
        for (index, tool) in tools.enumerated() {
            let prefix = "\(root)-\(index)-"
            var parameters: [String] = []
            if let properties = Self.properties(of: tool) {
                for (position, property) in properties.enumerated() {
                    let value: String
                    if Self.isPlainString(property.schema) {
                        value = "\(root)-text"
                    } else {
                        let compiled = try Self.valueGrammar(property.schema, prefix: "\(prefix)\(position)-")
                        lines.append(compiled.gbnf)
                        value = compiled.rule
                    }
                    let parameter =
                        Self.literal("<parameter name=\"\(Self.escaped(property.name))\">") + " \(value) "
                        + Self.literal("</parameter>\n")
                    parameters.append(property.required ? parameter : "(\(parameter))?")
                }
            } else {
                parameters.append(#"("<parameter name=\"" [A-Za-z0-9_]+ "\">" \#(root)-text "</parameter>\n")*"#)
            }
            let opening = Self.literal("<invoke name=\"\(Self.escaped(tool.name))\">\n")
            lines.append("\(prefix)invoke ::= \(opening) \(parameters.joined(separator: " ")) \"</invoke>\"")
            invokeRules.append(prefix + "invoke")
        }
        lines.append(#"\#(root)-text ::= [^<]*"#)
        lines.append("\(root)-invoke ::= " + (invokeRules.isEmpty ? #""""# : invokeRules.joined(separator: " | ")))
        let more = maxCalls > 1 ? #" ("\n" "# + root + "-invoke){0,\(maxCalls - 1)}" : ""
        lines.append(
            "\(root) ::= \(Self.literal(openTag + callLead)) \(root)-invoke\(more) \(Self.literal("\n" + close))"
        )
        return lines.joined(separator: "\n") + "\n"
    }

    func namePrefix(_ tool: String) -> String { "<invoke name=\"\(Self.escaped(tool))\">" }

    func parse(_ text: String, tools: [ToolDefinition]) -> ToolCallFormat.ParsedOutput {
        guard let first = text.firstRange(of: openTag) else {
            return ToolCallFormat.ParsedOutput(content: text, calls: [], dropped: 0)
        }
        var output = ToolCallFormat.ParsedOutput(content: String(text[..<first.lowerBound]), calls: [], dropped: 0)
        var rest = text[first.upperBound...]
        while let start = rest.firstRange(of: "<invoke") {
            guard let end = rest[start.upperBound...].firstRange(of: "</invoke>") else {
                // The output ended inside it.
                output.dropped += 1
                break
            }
            if let call = invocation(rest[start.upperBound..<end.lowerBound], tools: tools) {
                output.calls.append(call)
            } else {
                output.dropped += 1
            }
            rest = rest[end.upperBound...]
        }
        return output
    }

    /// One `<invoke>`'s name and arguments, from the text after `<invoke` to `</invoke>`.
    private func invocation(_ text: Substring, tools: [ToolDefinition]) -> (name: String, arguments: JSONValue)? {
        guard let (name, afterName) = Self.nameAttribute(text), let body = afterName.firstRange(of: ">") else {
            return nil
        }
        let properties = tools.first { $0.name == name }.flatMap { Self.properties(of: $0) }
        var arguments = JSONObject()
        var rest = afterName[body.upperBound...]
        while let start = rest.firstRange(of: "<parameter") {
            guard let (key, afterKey) = Self.nameAttribute(rest[start.upperBound...]),
                let open = afterKey.firstRange(of: ">"),
                let end = afterKey[open.upperBound...].firstRange(of: "</parameter>")
            else { return nil }
            let raw = Self.unescaped(afterKey[open.upperBound..<end.lowerBound])
            let schema = properties?.first { $0.name == key }?.schema
            if let schema, Self.isPlainString(schema) {
                arguments[key] = .string(raw)
            } else {
                arguments[key] = (try? JSONValue(parsing: raw.trimmed())) ?? .string(raw)
            }
            rest = afterKey[end.upperBound...]
        }
        return (name, .object(arguments))
    }

    /// The value of the `name="…"` attribute at the start of `text`, and the text after it.
    private static func nameAttribute(_ text: Substring) -> (String, Substring)? {
        let trimmed = text.drop { $0 == " " || $0 == "\n" || $0 == "\t" }
        guard trimmed.hasPrefix("name=\"") else { return nil }
        let value = trimmed.dropFirst(6)
        guard let end = value.firstIndex(of: "\"") else { return nil }
        return (unescaped(value[..<end]), value[value.index(after: end)...])
    }

    func write(_ calls: [ToolCall], tools: [ToolDefinition]) -> String {
        let invokes = calls.map { call in
            let properties = tools.first { $0.name == call.name }.flatMap { Self.properties(of: $0) }
            let parameters = (call.arguments.objectValue ?? JSONObject()).map { member in
                let schema = properties?.first { $0.name == member.key }?.schema
                let text: String
                if case .string(let string) = member.value,
                    schema.map(Self.isPlainString) ?? ((try? JSONValue(parsing: string.trimmed())) == nil)
                {
                    text = string
                } else {
                    text = member.value.jsonText()
                }
                return
                    "<parameter name=\"\(Self.escaped(member.key))\">\(Self.escaped(text, quotes: false))</parameter>\n"
            }
            return "<invoke name=\"\(Self.escaped(call.name))\">\n" + parameters.joined() + "</invoke>"
        }
        return openTag + callLead + invokes.joined(separator: "\n") + "\n" + close
    }

    func response(_ content: String) -> String { "<function_results>\n\(content)\n</function_results>" }

    /// Whether values of `schema` are any string at all: only such a parameter is written
    /// as bare text, since nothing in the text could break a constraint.
    static func isPlainString(_ schema: JSONSchema) -> Bool {
        guard let object = schema.value.objectValue, object["type"] == "string" else { return false }
        let annotations: Set<String> = ["type", "description", "title", "examples", "default", "$comment"]
        return object.keys.allSatisfy(annotations.contains)
    }

    /// `text` with the characters XML reserves escaped; quotes only for an attribute value,
    /// so JSON in an element reads as JSON.
    static func escaped(_ text: some StringProtocol, quotes: Bool = true) -> String {
        var output = ""
        for character in text {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"" where quotes: output += "&quot;"
            default: output.append(character)
            }
        }
        return output
    }

    /// `text` with XML's five named entities replaced by their characters.
    static func unescaped(_ text: some StringProtocol) -> String {
        guard text.contains("&") else { return String(text) }
        return String(text)
            .replacing("&lt;", with: "<")
            .replacing("&gt;", with: ">")
            .replacing("&quot;", with: "\"")
            .replacing("&apos;", with: "'")
            .replacing("&amp;", with: "&")
    }
}
