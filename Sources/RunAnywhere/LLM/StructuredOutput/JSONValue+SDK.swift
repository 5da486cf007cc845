@_exported import RunAnywhereJSON

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The JSON value and its parser are the module RunAnywhereJSON, which knows nothing of the SDK;
// importing RunAnywhere brings it, and these are its entry points with the SDK's errors.
extension JSONValue {
    /// Parses JSON text, keeping member order.
    ///
    /// - Throws: `.invalidInput` with the line and column of the first error.
    public init(parsing text: String) throws(SDKException) {
        do {
            self = try JSONParser.parse(text)
        } catch {
            throw SDKException(.invalidInput, error.message)
        }
    }

    /// Parses JSON text from outside with at most one object or array for every 64 bytes of it
    /// (and 1,024 in any case): a large answer of numbers or text parses, while one of tiny objects,
    /// each of which costs some ten times its text, is refused.
    ///
    /// - Throws: `.invalidInput` with the line and column of the first error.
    package init(parsingUntrusted text: String) throws(SDKException) {
        do {
            self = try JSONParser.parse(text, maximumContainers: JSONParser.containerBudget(forBytes: text.utf8.count))
        } catch {
            throw SDKException(.invalidInput, error.message)
        }
    }

    /// Converts any `Encodable` value to JSON, keeping the member order of its encoding.
    ///
    /// - Throws: `.invalidInput` when the value cannot be encoded as JSON.
    public init(encoding value: some Encodable) throws(SDKException) {
        let data: Data
        do {
            data = try JSONEncoder().encode(value)
        } catch {
            throw SDKException.wrap(error, as: .invalidInput, "The value cannot be encoded as JSON")
        }
        do {
            self = try JSONParser.parse(String(decoding: data, as: UTF8.self))
        } catch {
            throw SDKException(.invalidInput, error.message)
        }
    }

    /// Decodes the value as `type`.
    ///
    /// - Throws: `.invalidStructuredOutput` naming the field that does not fit.
    public func decode<T: Decodable>(as type: T.Type) throws(SDKException) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(jsonText().utf8))
        } catch {
            throw SDKException(
                .invalidStructuredOutput,
                "The JSON does not decode as \(T.self): \(error)",
                underlying: error
            )
        }
    }
}
