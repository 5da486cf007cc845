import RunAnywhereJSON

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A schema document as a whole: where its `$ref`s lead, and the rules that both the grammar
/// converter and the validator must read the same way.
struct JSONSchemaDocument: Sendable {
    /// The schema at the root of the document.
    let root: JSONValue

    /// Where a `$ref` leads.
    enum Resolution {
        /// The schema there and its canonical JSON pointer.
        case found(JSONValue, pointer: String)
        /// A reference into this document that leads nowhere.
        case notFound
        /// A reference to another document.
        case remote
    }

    /// Follows `reference`: `#`, a JSON pointer fragment (`#/$defs/item`), an anchor
    /// (`#item`, by `$anchor`), or any of these after the root's own `$id`.
    func resolve(_ reference: String) -> Resolution {
        var fragment = reference
        if let id = root["$id"]?.stringValue, !id.isEmpty, fragment.hasPrefix(id) {
            fragment = String(fragment.dropFirst(id.count))
            if fragment.isEmpty { fragment = "#" }
            if !fragment.hasPrefix("#") { fragment = "#" + fragment }
        }
        guard fragment.hasPrefix("#") else { return .remote }
        fragment.removeFirst()
        fragment = fragment.percentDecoded ?? fragment
        if fragment.isEmpty { return .found(root, pointer: "") }
        guard fragment.hasPrefix("/") else {
            return findAnchor(fragment, in: root, at: "", depth: 0).map { .found($0.0, pointer: $0.1) } ?? .notFound
        }
        var current = root
        var pointer = ""
        for rawToken in fragment.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let token = String(rawToken.replacing("~1", with: "/").replacing("~0", with: "~"))
            switch current {
            case .object(let object):
                guard let next = object[token] else { return .notFound }
                current = next
            case .array(let values):
                guard let index = Int(token), index >= 0, index < values.count, String(index) == token else {
                    return .notFound
                }
                current = values[index]
            default:
                return .notFound
            }
            pointer = Self.child(pointer, token)
        }
        return .found(current, pointer: pointer)
    }

    private func findAnchor(_ name: String, in value: JSONValue, at pointer: String, depth: Int) -> (JSONValue, String)?
    {
        guard depth < 64 else { return nil }
        switch value {
        case .object(let object):
            if object["$anchor"]?.stringValue == name { return (value, pointer) }
            for member in object {
                if let found = findAnchor(name, in: member.value, at: Self.child(pointer, member.key), depth: depth + 1)
                {
                    return found
                }
            }
        case .array(let values):
            for (index, element) in values.enumerated() {
                if let found = findAnchor(name, in: element, at: Self.child(pointer, String(index)), depth: depth + 1) {
                    return found
                }
            }
        default:
            break
        }
        return nil
    }

    /// `pointer` extended by `tokens`, each escaped (`~` as `~0`, `/` as `~1`).
    static func child(_ pointer: String, _ tokens: String...) -> String {
        tokens.reduce(pointer) { result, token in
            result + "/" + token.replacing("~", with: "~0").replacing("/", with: "~1")
        }
    }

    /// Whether `strictObjects` closes this schema: it describes objects (its `type` includes
    /// `object`, or it has `properties`) and says nothing about other members.
    static func strictObjectsClose(_ schema: JSONObject) -> Bool {
        guard schema["additionalProperties"] == nil else { return false }
        if schema["properties"] != nil { return true }
        switch schema["type"] {
        case .string(let type)?: return type == "object"
        case .array(let types)?: return types.contains(.string("object"))
        default: return false
        }
    }

    /// A text equal for values that are `equal(_:_:)`, for sets and dictionaries.
    static func canonicalKey(_ value: JSONValue) -> String {
        switch value {
        case .integer, .number: return SchemaDecimal(value).map { "n\($0)" } ?? value.jsonText()
        case .array(let values): return "[" + values.map(canonicalKey).joined(separator: ",") + "]"
        case .object(let object):
            let members = object.members.sorted { $0.key < $1.key }
            return "{"
                + members.map { JSONValue.string($0.key).jsonText() + ":" + canonicalKey($0.value) }
                .joined(separator: ",") + "}"
        default: return value.jsonText()
        }
    }

    /// Equality as JSON Schema defines it for `enum` and `const`: numbers by value whatever
    /// their spelling (`1` equals `1.0`), objects whatever their member order.
    static func equal(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.integer, .integer), (.integer, .number), (.number, .integer), (.number, .number):
            return SchemaDecimal(lhs) == SchemaDecimal(rhs)
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count
                && a.allSatisfy { member in b[member.key].map { equal(member.value, $0) } ?? false }
        default:
            return lhs == rhs
        }
    }
}
