/// A keyword at one place in a JSON Schema, such as the `uniqueItems` of a `tags` property
/// that a grammar cannot enforce.
public struct JSONSchemaKeywordLocation: Sendable, Codable, Equatable, CustomStringConvertible {
    /// The keyword, such as `uniqueItems`.
    public var keyword: String
    /// A JSON pointer to the keyword in the schema, such as `/properties/tags/uniqueItems`.
    public var pointer: String

    /// Names `keyword` at `pointer`.
    public init(keyword: String, pointer: String) {
        self.keyword = keyword
        self.pointer = pointer
    }

    /// `uniqueItems at /properties/tags/uniqueItems`.
    public var description: String { "\(keyword) at \(pointer)" }
}
