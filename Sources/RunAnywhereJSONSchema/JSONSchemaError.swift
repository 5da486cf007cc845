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

/// How the compiler reads objects and what it may leave out; the SDK's
/// `JSONSchemaGrammar.Options` in the compiler's terms.
package struct JSONSchemaCompilerOptions: Sendable, Equatable {
    /// Objects without `additionalProperties` take no other members.
    package var strictObjects: Bool
    /// Keywords the grammar cannot enforce are left out and listed, instead of refused.
    package var bestEffort: Bool

    /// Options as given.
    package init(strictObjects: Bool = false, bestEffort: Bool = false) {
        self.strictObjects = strictObjects
        self.bestEffort = bestEffort
    }
}
