import RunAnywhereJSON

/// The original SDK's name for a tool argument or result value: `JSONValue`.
public typealias ToolValue = JSONValue

/// The original SDK's tool executor: the arguments' members in, the result's members out.
/// (This SDK's own executors, ``JSONToolExecutor``, map one JSON value to another.)
public typealias ToolExecutor = @Sendable (_ arguments: [String: ToolValue]) async throws -> [String: ToolValue]

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

    /// An object of `fields`, its keys sorted so its text is stable (the original SDK's
    /// `ToolValue.object(_:)` from a dictionary; a literal makes an ordered `JSONObject`).
    @_disfavoredOverload
    public static func object(_ fields: [String: JSONValue]) -> JSONValue {
        .object(JSONObject(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }

    /// The members of a JSON object given as text, as the original SDK's tool executors take
    /// them.
    ///
    /// - Throws: `.invalidInput` when the text is not JSON or not an object.
    public static func parseObject(_ text: String) throws(SDKException) -> [String: JSONValue] {
        guard let object = try JSONValue(parsing: text).objectValue else {
            throw SDKException(.invalidInput, "The JSON text is not an object")
        }
        return members(of: object)
    }

    /// The members of a JSON object given as text, or none when the text is not JSON or not an
    /// object (the original SDK's form; ``parseObject(_:)`` says why).
    public static func parseObjectJSON(_ text: String) -> [String: JSONValue] {
        (try? parseObject(text)) ?? [:]
    }

    /// `members` as the text of one JSON object, its keys sorted so the text is stable.
    public static func jsonString(from members: [String: JSONValue]) -> String {
        JSONValue.object(members).jsonText()
    }

    /// An object's members; of a key written twice, the last value counts, as JSON parsers do.
    static func members(of object: JSONObject) -> [String: JSONValue] {
        Dictionary(object.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// An executor of this SDK that runs one of the original SDK's: the arguments' members in,
    /// the result's members out as an object.
    static func toolExecutor(_ executor: @escaping ToolExecutor) -> JSONToolExecutor {
        { arguments in
            .object(try await executor(arguments.objectValue.map(members(of:)) ?? [:]))
        }
    }
}
