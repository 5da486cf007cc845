@_exported import RunAnywhereJSONSchema

// JSON Schema and its compiler to grammars are the module RunAnywhereJSONSchema, which knows
// nothing of the SDK; importing RunAnywhere brings it, and these are its entry points with the
// SDK's errors.
extension JSONSchema {
    /// Wraps a schema document.
    ///
    /// - Throws: `.invalidSchema` unless `value` is an object or a Boolean.
    public init(_ value: JSONValue) throws(SDKException) {
        do {
            try self.init(checking: value)
        } catch {
            throw SDKException(error)
        }
    }

    /// Parses a schema from JSON text.
    ///
    /// - Throws: `.invalidSchema` when the text is not JSON (with the position) or not a schema.
    public init(parsing text: String) throws(SDKException) {
        do {
            try self.init(checkingText: text)
        } catch {
            throw SDKException(error)
        }
    }
}

extension SDKException {
    /// The SDK's error for a schema the schema module refused: `.invalidSchema` or
    /// `.unsupportedSchema`, with its message and advice.
    init(_ error: JSONSchemaError) {
        switch error.kind {
        case .invalidSchema: self.init(.invalidSchema, error.message, recovery: error.recovery)
        case .unsupportedSchema: self.init(.unsupportedSchema, error.message, recovery: error.recovery)
        }
    }
}
