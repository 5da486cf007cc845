import RunAnywhereJSON

/// The original SDK's name for a tool argument or result value: `JSONValue`.
public typealias ToolValue = JSONValue

extension JSONValue {
    /// A string value (the original SDK's `ToolValue(_:)`).
    public init(_ string: String) { self = .string(string) }
    /// An integer value.
    public init(_ integer: Int) { self = .integer(Int64(integer)) }
    /// A number value.
    public init(_ number: Double) { self = .number(number) }
    /// A Boolean value.
    public init(_ bool: Bool) { self = .bool(bool) }

    /// The value as JSON text (the original SDK's name and optional result for
    /// `jsonText(pretty:)`, which never fails: this is never `nil`).
    public func toJSONString(pretty: Bool = false) -> String? { jsonText(pretty: pretty) }

    /// The members of a JSON object given as text, as the original SDK's tool executors take
    /// them.
    ///
    /// - Throws: `.invalidInput` when the text is not JSON or not an object.
    public static func parseObjectJSON(_ text: String) throws(SDKException) -> [String: JSONValue] {
        guard let object = try JSONValue(parsing: text).objectValue else {
            throw SDKException(.invalidInput, "The JSON text is not an object")
        }
        return Dictionary(object.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// `members` as the text of one JSON object, its keys sorted so the text is stable.
    public static func jsonString(from members: [String: JSONValue]) -> String {
        JSONValue.object(JSONObject(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })).jsonText()
    }
}
