import RunAnywhereJSON

/// One parameter of a tool, the original SDK's way of describing tools: a name, a type, a
/// description, whether it is required and the values it may take. This SDK describes
/// parameters with a `JSONSchema`; `ToolDefinition(name:description:parameters:)` with a list
/// turns a list of these into one.
public struct ToolParameter: Sendable, Codable, Equatable {
    /// The JSON type of a parameter.
    public enum ParameterType: String, Sendable, Codable, CaseIterable {
        /// Text.
        case string
        /// Any number.
        case number
        /// A whole number.
        case integer
        /// `true` or `false`.
        case boolean
        /// A list of any values.
        case array
        /// An object of any members.
        case object
    }

    /// The parameter's name.
    public var name: String
    /// Its type.
    public var type: ParameterType
    /// What it means, for the model.
    public var description: String
    /// Whether a call must give it.
    public var required: Bool
    /// The only values it may take; `nil` for any of its type.
    public var enumValues: [String]?

    /// A parameter.
    public init(
        name: String,
        type: ParameterType,
        description: String,
        required: Bool = true,
        enumValues: [String]? = nil
    ) {
        self.name = name
        self.type = type
        self.description = description
        self.required = required
        self.enumValues = enumValues
    }

    /// The parameter's JSON Schema.
    var schema: JSONSchema {
        var object: JSONObject = ["type": .string(type.rawValue), "description": .string(description)]
        if let enumValues { object["enum"] = .array(enumValues.map { .string($0) }) }
        // Built from a type name and strings only: always a valid schema.
        return (try? JSONSchema(.object(object))) ?? .any
    }
}

/// The original SDK's name for a parameter's type.
public typealias ToolParameterType = ToolParameter.ParameterType

extension ToolDefinition {
    /// A tool described the original SDK's way: its parameters as a list, made into an
    /// object schema with those properties in that order, the required ones required.
    public init(name: String, description: String, parameters: [ToolParameter]) {
        self.init(
            name: name,
            description: description,
            parameters: .object(
                orderedProperties: parameters.map { (name: $0.name, schema: $0.schema) },
                required: parameters.filter(\.required).map(\.name)
            )
        )
    }
}
