import MCP
import RunAnywhere

extension JSONValue {
    /// The MCP SDK's value as RunAnywhere JSON.
    ///
    /// Integers stay integers and other numbers stay doubles. The SDK keeps objects in
    /// dictionaries, so their written order is already gone; members come out sorted by key,
    /// which at least gives the same schema, and the same prompt, on every run. A data value
    /// becomes the data-URL string the SDK read it from.
    init(mcp value: MCP.Value) {
        switch value {
        case .null:
            self = .null
        case .bool(let bool):
            self = .bool(bool)
        case .int(let int):
            self = .integer(Int64(int))
        case .double(let double):
            self = .number(double)
        case .string(let string):
            self = .string(string)
        case .data(let mimeType, let data):
            self = .string(data.dataURLEncoded(mimeType: mimeType))
        case .array(let values):
            self = .array(values.map(JSONValue.init(mcp:)))
        case .object(let members):
            let sorted = members.sorted { $0.key < $1.key }
            self = .object(JSONObject(sorted.map { ($0.key, JSONValue(mcp: $0.value)) }))
        }
    }
}

extension Value {
    /// RunAnywhere JSON as the MCP SDK's value, for the arguments of a call; the SDK's
    /// dictionaries drop the member order, which JSON-RPC does not depend on.
    init(json value: JSONValue) {
        switch value {
        case .null:
            self = .null
        case .bool(let bool):
            self = .bool(bool)
        case .integer(let integer):
            self = Int(exactly: integer).map(Value.int) ?? .double(Double(integer))
        case .number(let number):
            self = .double(number)
        case .string(let string):
            self = .string(string)
        case .array(let values):
            self = .array(values.map(Value.init(json:)))
        case .object(let object):
            self = .object(Dictionary(object.members.map { ($0.key, Value(json: $0.value)) }) { _, last in last })
        }
    }
}
