/// One way a JSON value breaks a JSON Schema, found by ``JSONSchema/validate(_:strictObjects:)``.
public struct JSONSchemaViolation: Sendable, Codable, Equatable, CustomStringConvertible {
    /// A JSON pointer to the offending part of the value: `""` for the whole value,
    /// `/items/0/name` for the `name` of the first element of `items`.
    public var instancePointer: String
    /// The schema keyword that failed, such as `required` or `maximum`.
    public var keyword: String
    /// What is wrong, in words.
    public var message: String

    /// Describes a violation.
    public init(instancePointer: String, keyword: String, message: String) {
        self.instancePointer = instancePointer
        self.keyword = keyword
        self.message = message
    }

    /// `/age: 200 is above the maximum 150 (maximum)`; the whole value reads as `(root)`.
    public var description: String {
        "\(instancePointer.isEmpty ? "(root)" : instancePointer): \(message) (\(keyword))"
    }
}
