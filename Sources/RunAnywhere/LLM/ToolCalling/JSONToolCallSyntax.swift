import RunAnywhereJSON

/// Calls written as JSON objects: tagged (`<tool_call>{…}</tool_call>`) or bare, naming the
/// tool and its arguments under this format's keys, optionally inside a wrapper member.
struct JSONToolCallSyntax: ToolCallSyntax {
    /// How a tool's result is carried back.
    enum Response {
        /// Inside `<tool_response>` tags.
        case tagged
        /// As it is.
        case plain
    }

    let openTag: String
    /// The closing tag; empty for bare objects, which end with their closing brace.
    let close: String
    let nameKey: String
    let argumentsKey: String
    /// The member that holds the call object (`function_call`), if any.
    let wrapperKey: String?
    /// Whether other names for the keys, which small models write, are read too.
    let lenient: Bool
    let responseStyle: Response

    init(
        open: String,
        close: String = "",
        nameKey: String = "name",
        argumentsKey: String = "arguments",
        wrapperKey: String? = nil,
        lenient: Bool = false,
        response: Response = .tagged
    ) {
        self.openTag = open
        self.close = close
        self.nameKey = nameKey
        self.argumentsKey = argumentsKey
        self.wrapperKey = wrapperKey
        self.lenient = lenient
        self.responseStyle = response
    }

    /// The names the original SDK's reader takes for the tool and its arguments, in order.
    private static let nameAliases = ["tool", "name", "function", "func", "method", "action", "command"]
    private static let argumentsAliases = ["arguments", "args", "params", "parameters", "input"]

    /// The JSON Schema of one call object naming one of `tools`.
    func callSchema(_ tools: [ToolDefinition]) -> JSONSchema {
        let calls = tools.map { tool in
            let call = JSONSchema.object(
                orderedProperties: [
                    (name: nameKey, schema: .constant(.string(tool.name))),
                    (name: argumentsKey, schema: tool.parameters),
                ],
                required: [nameKey, argumentsKey]
            )
            return wrapperKey.map { JSONSchema.object(orderedProperties: [(name: $0, schema: call)]) } ?? call
        }
        return calls.count == 1 ? calls[0] : .anyOf(calls)
    }

    func grammar(tools: [ToolDefinition], maxCalls: Int, root: String) throws(SDKException) -> String {
        let compiled = try JSONSchemaGrammar(callSchema(tools), options: JSONSchemaGrammar.Options(strictObjects: true))
        let block = close.isEmpty ? "root" : Self.literal(openTag) + #" "\n"? root "\n"? "# + Self.literal(close)
        return compiled.grammar.gbnf + "\n" + Self.repeatedBlocks(block, maxCalls: maxCalls, root: root)
    }

    var callLead: String { close.isEmpty ? "" : "\n" }

    func namePrefix(_ tool: String) -> String {
        let name = JSONValue.string(tool).jsonText()
        // A bare object's open tag already holds the name key, or the wrapper's.
        if close.isEmpty, wrapperKey == nil { return " " + name }
        return (close.isEmpty ? " {" : "{") + JSONValue.string(nameKey).jsonText() + ": " + name
    }

    func parse(_ text: String, tools: [ToolDefinition]) -> ToolCallFormat.ParsedOutput {
        guard let first = nextCall(in: text[...]) else {
            return ToolCallFormat.ParsedOutput(content: text, calls: [], dropped: 0)
        }
        var output = ToolCallFormat.ParsedOutput(content: String(text[..<first.lowerBound]), calls: [], dropped: 0)
        var rest = text[first.lowerBound...]
        while let open = nextCall(in: rest) {
            // A bare object's open tag is its own beginning.
            let bodyStart = close.isEmpty ? open.lowerBound : open.upperBound
            let bodyEnd: String.Index
            let next: String.Index
            if close.isEmpty {
                guard let end = Self.endOfJSONObject(in: rest[bodyStart...]) else {
                    output.dropped += 1
                    break
                }
                bodyEnd = end
                next = end
            } else if let closing = rest[bodyStart...].firstRange(of: close) {
                bodyEnd = closing.lowerBound
                next = closing.upperBound
            } else {
                // Unclosed: the output ended inside it.
                output.dropped += 1
                break
            }
            rest = rest[next...]
            guard let value = try? JSONValue(parsing: text[bodyStart..<bodyEnd].trimmed()), let call = read(value)
            else {
                output.dropped += 1
                continue
            }
            output.calls.append(call)
        }
        return output
    }

    /// The calls begun in `text`, read as far as they go: each one's tool name once its string
    /// is whole, and its arguments object's text up to where the output ends (or up to its
    /// closing brace). A call whose arguments are not an object (OpenAI's JSON string) has none.
    func partialCalls(in text: String) -> [PartialToolCall]? {
        var calls: [PartialToolCall] = []
        var rest = text[...]
        while let open = nextCall(in: rest) {
            let from = close.isEmpty ? open.lowerBound : open.upperBound
            guard let brace = rest[from...].firstIndex(of: "{") else { break }
            let bytes = Array(rest[brace...].utf8)
            let (call, end) = scanCallObject(bytes)
            calls.append(call)
            guard let end else { break }
            rest = rest[rest.utf8.index(brace, offsetBy: end)...]
        }
        return calls
    }

    /// One call object's name and arguments text, from its opening brace; and the offset
    /// just past its closing brace, or `nil` when the output ends inside it.
    ///
    /// Strings are skipped whole (escapes included), so braces and colons inside them count
    /// for nothing; keys are read at the call's own depth (one deeper inside a wrapper).
    private func scanCallObject(_ bytes: [UInt8]) -> (PartialToolCall, end: Int?) {
        let nameKeys = lenient ? Self.nameAliases : [nameKey]
        let argumentKeys = lenient ? Self.argumentsAliases : [argumentsKey]
        let callDepth = wrapperKey == nil ? 1 : 2
        var call = PartialToolCall()
        var depth = 0
        var inString = false
        var escaped = false
        var stringStart = 0
        var candidate: String?
        var key: String?
        var argumentsStart: Int?
        for (offset, byte) in bytes.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    guard depth == callDepth else { continue }
                    let value = (try? JSONValue(parsing: String(decoding: bytes[stringStart...offset], as: UTF8.self)))?
                        .stringValue
                    if let key {
                        if nameKeys.contains(key), call.name == nil { call.name = value }
                    } else {
                        candidate = value
                    }
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                stringStart = offset
            case UInt8(ascii: ":") where depth == callDepth:
                key = candidate
            case UInt8(ascii: ",") where depth == callDepth:
                key = nil
                candidate = nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if byte == UInt8(ascii: "{"), depth == callDepth, let key, argumentKeys.contains(key),
                    argumentsStart == nil
                {
                    argumentsStart = offset
                }
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == callDepth, let start = argumentsStart, !call.argumentsComplete, call.arguments.isEmpty {
                    call.arguments = String(decoding: bytes[start...offset], as: UTF8.self)
                    call.argumentsComplete = true
                }
                if depth == 0 { return (call, offset + 1) }
            default:
                break
            }
        }
        if let start = argumentsStart, !call.argumentsComplete {
            call.arguments = String(decoding: bytes[start...], as: UTF8.self)
        }
        return (call, nil)
    }

    /// Where the next call starts: its open tag, or for a bare object a `{` whose first
    /// member is the call's key however it is spaced (a grammar lets the model write
    /// `{ "name": …`), up to that key's colon.
    private func nextCall(in text: Substring) -> Range<String.Index>? {
        guard close.isEmpty else { return text.firstRange(of: openTag) }
        let key = JSONValue.string(wrapperKey ?? nameKey).jsonText()
        var searchFrom = text.startIndex
        while let brace = text[searchFrom...].firstIndex(of: "{") {
            let member = text[text.index(after: brace)...].drop(while: \.isWhitespace)
            if member.hasPrefix(key) {
                let colon = member.dropFirst(key.count).drop(while: \.isWhitespace)
                if colon.first == ":" { return brace..<colon.index(after: colon.startIndex) }
            }
            searchFrom = text.index(after: brace)
        }
        return nil
    }

    /// The name and arguments of one call object; `nil` when it has no name or its
    /// arguments are not an object (or, in OpenAI's way, a JSON string holding one).
    private func read(_ value: JSONValue) -> (name: String, arguments: JSONValue)? {
        var call = value
        if let wrapperKey {
            guard let inner = value[wrapperKey] else { return nil }
            call = inner
        }
        let nameKeys = lenient ? Self.nameAliases : [nameKey]
        let argumentKeys = lenient ? Self.argumentsAliases : [argumentsKey]
        guard let name = nameKeys.lazy.compactMap({ call[$0]?.stringValue }).first else { return nil }
        guard let arguments = argumentKeys.lazy.compactMap({ call[$0] }).first else { return (name, .object([:])) }
        if arguments.objectValue != nil { return (name, arguments) }
        if let string = arguments.stringValue, let parsed = try? JSONValue(parsing: string), parsed.objectValue != nil {
            return (name, parsed)
        }
        return nil
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

    func write(_ calls: [ToolCall], tools: [ToolDefinition]) -> String {
        calls.map { call in
            var object: JSONValue = [nameKey: .string(call.name), argumentsKey: call.arguments]
            if let wrapperKey { object = [wrapperKey: object] }
            return close.isEmpty ? object.jsonText() : "\(openTag)\n\(object.jsonText())\n\(close)"
        }
        .joined(separator: "\n")
    }

    func response(_ content: String) -> String {
        switch responseStyle {
        case .tagged: "<tool_response>\n\(content)\n</tool_response>"
        case .plain: content
        }
    }
}
