import RunAnywhereJSON

/// LFM2's calls: a Python list of calls with keyword arguments between
/// `<|tool_call_start|>` and `<|tool_call_end|>`, e.g.
/// `<|tool_call_start|>[get_weather(city="Oslo", days=2)]<|tool_call_end|>`.
///
/// Values are written as JSON; the reader also takes Python's `True`, `False`, `None`,
/// single-quoted strings and trailing commas, as LFM2 models write them.
struct PythonicToolCallSyntax: ToolCallSyntax {
    let openTag = "<|tool_call_start|>"
    let close = "<|tool_call_end|>"
    let callLead = "["

    func grammar(tools: [ToolDefinition], maxCalls: Int, root: String) throws(SDKException) -> String {
        var lines: [String] = []
        var callRules: [String] = []
        for (index, tool) in tools.enumerated() {
            let prefix = "\(root)-\(index)-"
            let arguments = try argumentsGrammar(tool, prefix: prefix, lines: &lines)
            lines.append("\(prefix)call ::= \(Self.literal(tool.name + "(")) \(arguments) \")\"")
            callRules.append(prefix + "call")
        }
        lines.append("\(root)-call ::= " + (callRules.isEmpty ? #""""# : callRules.joined(separator: " | ")))
        let more = maxCalls > 1 ? #" ("," " "? "# + root + "-call){0,\(maxCalls - 1)}" : ""
        lines.append("\(root) ::= \(Self.literal(openTag + "[")) \(root)-call\(more) \(Self.literal("]" + close))")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The rule of `tool`'s keyword arguments, in the schema's order, optional ones
    /// skippable, with commas only between those written; its rules go into `lines`.
    private func argumentsGrammar(
        _ tool: ToolDefinition,
        prefix: String,
        lines: inout [String]
    ) throws(SDKException) -> String {
        guard let properties = Self.properties(of: tool) else {
            let value = try Self.valueGrammar(.any, prefix: prefix + "any-")
            lines.append(value.gbnf)
            lines.append(#"\#(prefix)kw ::= [A-Za-z_] [A-Za-z0-9_]*"#)
            let argument = "\(prefix)kw \"=\" \(value.rule)"
            return "(\(argument) (\",\" \" \"? \(argument))*)?"
        }
        // `first-i`: the arguments from the i-th on with none before; `rest-i`: the same after one.
        lines.append("\(prefix)first-\(properties.count) ::= \"\"")
        lines.append("\(prefix)rest-\(properties.count) ::= \"\"")
        for (index, property) in properties.enumerated().reversed() {
            let value = try Self.valueGrammar(property.schema, prefix: "\(prefix)\(index)-")
            lines.append(value.gbnf)
            let argument = "\(Self.literal(property.name + "=")) \(value.rule)"
            let skip = property.required ? "" : " | \(prefix)first-\(index + 1)"
            let skipRest = property.required ? "" : " | \(prefix)rest-\(index + 1)"
            lines.append("\(prefix)first-\(index) ::= \(argument) \(prefix)rest-\(index + 1)\(skip)")
            lines.append("\(prefix)rest-\(index) ::= \",\" \" \"? \(argument) \(prefix)rest-\(index + 1)\(skipRest)")
        }
        return "\(prefix)first-0"
    }

    func namePrefix(_ tool: String) -> String { tool + "(" }

    func parse(_ text: String, tools: [ToolDefinition]) -> ToolCallFormat.ParsedOutput {
        guard let first = text.firstRange(of: openTag) else {
            return ToolCallFormat.ParsedOutput(content: text, calls: [], dropped: 0)
        }
        var output = ToolCallFormat.ParsedOutput(content: String(text[..<first.lowerBound]), calls: [], dropped: 0)
        var rest = text[first.lowerBound...]
        while let open = rest.firstRange(of: openTag) {
            let closing = rest[open.upperBound...].firstRange(of: close)
            let body = rest[open.upperBound..<(closing?.lowerBound ?? rest.endIndex)]
            var reader = PythonLiteralReader(body)
            let list = reader.callList()
            output.calls += list.calls
            output.dropped += list.dropped
            guard let closing else { break }
            rest = rest[closing.upperBound...]
        }
        return output
    }

    func write(_ calls: [ToolCall], tools: [ToolDefinition]) -> String {
        let written = calls.map { call in
            let arguments = (call.arguments.objectValue ?? JSONObject()).map { "\($0.key)=\($0.value.jsonText())" }
            return "\(call.name)(\(arguments.joined(separator: ", ")))"
        }
        return openTag + "[" + written.joined(separator: ", ") + "]" + close
    }

    func response(_ content: String) -> String { content }
}

/// Reads a Python list of calls (`[name(key=value, …), …]`) whose values are Python or
/// JSON literals. Hostile text cannot make it recurse without bound: nesting stops at 64.
struct PythonLiteralReader {
    private let scalars: [Unicode.Scalar]
    private var position = 0
    private static let maximumDepth = 64

    init(_ text: Substring) {
        scalars = Array(text.unicodeScalars)
    }

    /// The complete calls of the list, and how many were malformed or cut (at most one: the
    /// reader stops there). Text after the last complete call is ignored.
    mutating func callList() -> (calls: [(name: String, arguments: JSONValue)], dropped: Int) {
        var calls: [(name: String, arguments: JSONValue)] = []
        skipSpace()
        let bracketed = take("[")
        while true {
            skipSpace()
            if position >= scalars.count || (bracketed && take("]")) { return (calls, 0) }
            guard let call = self.call() else { return (calls, 1) }
            calls.append(call)
            skipSpace()
            guard take(",") else { return (calls, 0) }
        }
    }

    /// `name(key=value, …)`; `nil` when malformed or cut.
    private mutating func call() -> (name: String, arguments: JSONValue)? {
        var name = ""
        while position < scalars.count, scalars[position] != "(", scalars[position] != ",", scalars[position] != "]" {
            name.unicodeScalars.append(scalars[position])
            position += 1
        }
        name = name.trimmed()
        guard !name.isEmpty, take("(") else { return nil }
        var arguments = JSONObject()
        skipSpace()
        if take(")") { return (name, .object(arguments)) }
        while true {
            skipSpace()
            // A keyword is whatever precedes `=`: JSON Schema allows any property name.
            var key = ""
            while position < scalars.count, !"=,)\n".unicodeScalars.contains(scalars[position]) {
                key.unicodeScalars.append(scalars[position])
                position += 1
            }
            key = key.trimmed()
            guard !key.isEmpty, take("="), let value = self.value(depth: 0) else { return nil }
            arguments[key] = value
            skipSpace()
            if take(",") {
                skipSpace()
                if take(")") { return (name, .object(arguments)) }
                continue
            }
            return take(")") ? (name, .object(arguments)) : nil
        }
    }

    /// One literal: a string (either quote), number, `True`/`true`, `False`/`false`,
    /// `None`/`null`, list or dict.
    private mutating func value(depth: Int) -> JSONValue? {
        guard depth < Self.maximumDepth else { return nil }
        skipSpace()
        guard position < scalars.count else { return nil }
        switch scalars[position] {
        case "\"", "'": return string().map { .string($0) }
        case "[":
            position += 1
            var items: [JSONValue] = []
            while true {
                skipSpace()
                if take("]") { return .array(items) }
                guard let item = value(depth: depth + 1) else { return nil }
                items.append(item)
                skipSpace()
                if take(",") { continue }
                return take("]") ? .array(items) : nil
            }
        case "{":
            position += 1
            var object = JSONObject()
            while true {
                skipSpace()
                if take("}") { return .object(object) }
                guard let key = string() else { return nil }
                skipSpace()
                guard take(":"), let member = value(depth: depth + 1) else { return nil }
                object[key] = member
                skipSpace()
                if take(",") { continue }
                return take("}") ? .object(object) : nil
            }
        default:
            var token = ""
            while position < scalars.count, !",)]}: \n\t\r".unicodeScalars.contains(scalars[position]) {
                token.unicodeScalars.append(scalars[position])
                position += 1
            }
            switch token {
            case "True", "true": return .bool(true)
            case "False", "false": return .bool(false)
            case "None", "null": return .null
            default:
                guard let first = token.unicodeScalars.first, first == "-" || ("0"..."9").contains(first),
                    let number = try? JSONValue(parsing: token)
                else { return nil }
                return number
            }
        }
    }

    /// A quoted string with JSON's and Python's escapes; `nil` when it is not closed.
    private mutating func string() -> String? {
        guard position < scalars.count, scalars[position] == "\"" || scalars[position] == "'" else { return nil }
        let quote = scalars[position]
        position += 1
        var text = ""
        while position < scalars.count {
            let scalar = scalars[position]
            position += 1
            if scalar == quote { return text }
            guard scalar == "\\" else {
                text.unicodeScalars.append(scalar)
                continue
            }
            guard position < scalars.count else { return nil }
            let escape = scalars[position]
            position += 1
            switch escape {
            case "n": text += "\n"
            case "t": text += "\t"
            case "r": text += "\r"
            case "b": text += "\u{08}"
            case "f": text += "\u{0C}"
            case "u":
                guard let scalar = hexScalar(digits: 4) else { return nil }
                text.unicodeScalars.append(scalar)
            case "x":
                guard let scalar = hexScalar(digits: 2) else { return nil }
                text.unicodeScalars.append(scalar)
            case "\\", "\"", "'", "/": text.unicodeScalars.append(escape)
            default:
                text += "\\"
                text.unicodeScalars.append(escape)
            }
        }
        return nil
    }

    /// The scalar of the next `digits` hexadecimal digits (a JSON surrogate pair when the
    /// first of two `\u` escapes is a high surrogate).
    private mutating func hexScalar(digits: Int) -> Unicode.Scalar? {
        guard let high = hexValue(digits: digits) else { return nil }
        if digits == 4, (0xD800...0xDBFF).contains(high) {
            guard position + 1 < scalars.count, scalars[position] == "\\", scalars[position + 1] == "u" else {
                return nil
            }
            position += 2
            guard let low = hexValue(digits: 4), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high)
    }

    private mutating func hexValue(digits: Int) -> UInt32? {
        guard position + digits <= scalars.count else { return nil }
        var value: UInt32 = 0
        for scalar in scalars[position..<position + digits] {
            guard let digit = Int(String(scalar), radix: 16) else { return nil }
            value = value * 16 + UInt32(digit)
        }
        position += digits
        return value
    }

    private mutating func skipSpace() {
        while position < scalars.count,
            scalars[position] == " " || scalars[position] == "\n" || scalars[position] == "\t"
                || scalars[position] == "\r"
        {
            position += 1
        }
    }

    private mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        guard position < scalars.count, scalars[position] == scalar else { return false }
        position += 1
        return true
    }
}
