import RunAnywhereJSON

/// A function the model may call: its name, what it does, and its arguments as a JSON
/// Schema object.
///
/// ```swift
/// let weather = ToolDefinition(
///     name: "get_weather",
///     description: "Current weather for a city",
///     parameters: .object(["city": .string(minLength: 1), "unit": .enumeration(["celsius", "fahrenheit"])],
///                         required: ["city"])
/// )
/// ```
public struct ToolDefinition: Sendable, Codable, Equatable {
    /// The name the model writes to call it: letters, digits, `_` and `-`, at most 64.
    public var name: String
    /// What the tool does, for the model to choose it.
    public var description: String
    /// The arguments, an object schema; the model's arguments are constrained to it.
    public var parameters: JSONSchema

    /// Creates a definition; ``validate()`` checks it.
    public init(name: String, description: String, parameters: JSONSchema = .object([:])) {
        self.name = name
        self.description = description
        self.parameters = parameters
    }

    /// Reads an OpenAI-style function definition: `{"type": "function", "function": {...}}`
    /// or the bare `{"name", "description", "parameters"}` object.
    ///
    /// - Throws: `.invalidTool` naming what is missing or malformed.
    public init(openAI value: JSONValue) throws(SDKException) {
        let function = value["function"] ?? value
        guard let name = function["name"]?.stringValue else {
            throw SDKException(.invalidTool, "A tool definition has no \"name\" string")
        }
        let parameters: JSONSchema
        if let schema = function["parameters"] {
            do {
                parameters = try JSONSchema(schema)
            } catch {
                throw SDKException(.invalidTool, "The parameters of tool '\(name)' are not a schema: \(error.message)")
            }
        } else {
            parameters = .object([:])
        }
        self.init(name: name, description: function["description"]?.stringValue ?? "", parameters: parameters)
        try validate()
    }

    /// Reads a JSON array of OpenAI-style function definitions (as in a request's `tools`).
    ///
    /// - Throws: `.invalidTool` for a malformed entry or a duplicate name.
    public static func list(openAI text: String) throws(SDKException) -> [ToolDefinition] {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: text)
        } catch {
            throw SDKException(.invalidTool, "The tool list is not JSON: \(error.message)")
        }
        guard let entries = value.arrayValue else {
            throw SDKException(.invalidTool, "The tool list must be a JSON array of function definitions")
        }
        let tools = try entries.map { entry throws(SDKException) in try ToolDefinition(openAI: entry) }
        try validate(tools)
        return tools
    }

    /// Checks every tool and that no two share a name.
    ///
    /// - Throws: `.invalidTool` naming the first problem.
    public static func validate(_ tools: [ToolDefinition]) throws(SDKException) {
        var seen: Set<String> = []
        for tool in tools {
            try tool.validate()
            guard seen.insert(tool.name).inserted else {
                throw SDKException(.invalidTool, "Two tools are named '\(tool.name)'")
            }
        }
    }

    /// Checks the name and that the parameters describe an object.
    ///
    /// - Throws: `.invalidTool` naming the problem.
    public func validate() throws(SDKException) {
        let allowed = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
                || $0 == "."
        }
        guard !name.isEmpty, name.count <= 64, allowed else {
            throw SDKException(
                .invalidTool,
                "Tool name '\(name)' is not 1–64 letters, digits, '_', '-' or '.'"
            )
        }
        switch parameters.value {
        case .bool(true):
            return
        case .object(let object):
            let type = object["type"]
            guard type == nil || type == .string("object") else {
                throw SDKException(
                    .invalidTool,
                    "The parameters of tool '\(name)' must be an object schema, not type \(type!.jsonText())"
                )
            }
        default:
            throw SDKException(.invalidTool, "The parameters of tool '\(name)' must be an object schema")
        }
    }

    /// The OpenAI-style JSON of this definition.
    public var openAIValue: JSONValue {
        [
            "type": "function",
            "function": ["name": .string(name), "description": .string(description), "parameters": parameters.value],
        ]
    }
}
