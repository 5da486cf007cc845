/// Why a schema cannot be used: it is malformed or contradicts itself, or it asks for what
/// a grammar cannot enforce. The SDK reports these as `invalidSchema` and `unsupportedSchema`.
package struct JSONSchemaError: Error, Equatable, CustomStringConvertible {
    /// The two reasons a schema is refused.
    package enum Kind: Sendable, Equatable {
        /// Malformed, contradicting itself, referring to nothing, or never complete.
        case invalidSchema
        /// A keyword the grammar cannot enforce.
        case unsupportedSchema
    }

    /// Which of the two.
    package let kind: Kind
    /// What is wrong, naming the JSON pointer.
    package let message: String
    /// What to do about it, when there is more to say than the message.
    package let recovery: String?

    /// An error of `kind` saying `message`.
    package init(_ kind: Kind, _ message: String, recovery: String? = nil) {
        self.kind = kind
        self.message = message
        self.recovery = recovery
    }

    /// The message.
    package var description: String { message }
}
