import SwiftDiagnostics

/// A misuse of `@Generable` or `@Guide`, reported as a compiler error on the syntax at fault.
struct GenerableDiagnostic: DiagnosticMessage, Error {
    let message: String
    let diagnosticID: MessageID
    var severity: DiagnosticSeverity { .error }

    private init(_ id: String, _ message: String) {
        self.message = message
        self.diagnosticID = MessageID(domain: "RunAnywhereMacros", id: id)
    }

    static func unsupportedDeclaration(_ kind: String) -> Self {
        Self(
            "unsupportedDeclaration",
            "'@Generable' applies to a struct or an enum, not \(kind); a model generates plain values"
        )
    }

    static func caseWithPayload(_ name: String) -> Self {
        Self(
            "caseWithPayload",
            "'@Generable' does not support enum cases with associated values yet ('\(name)'); "
                + "write the schema by hand or use a struct"
        )
    }

    static func nonStringRawValue(_ rawType: String) -> Self {
        Self(
            "nonStringRawValue",
            "'@Generable' enums need String raw values or none; '\(rawType)' raw values do not encode as strings"
        )
    }

    static let noCases = Self("noCases", "'@Generable' needs at least one case: a model cannot generate an empty enum")

    static func missingType(_ name: String) -> Self {
        Self("missingType", "'@Generable' needs an explicit type on stored property '\(name)' (for example ': Int')")
    }

    static let destructuringPattern = Self(
        "destructuringPattern",
        "'@Generable' needs one name per stored property; a tuple pattern has no JSON key"
    )

    static func unsupportedType(_ name: String, _ type: String) -> Self {
        Self(
            "unsupportedType",
            "'@Generable' cannot derive a schema for '\(name)': '\(type)' cannot be Generable"
        )
    }

    static func dictionaryProperty(_ name: String) -> Self {
        Self(
            "dictionaryProperty",
            "'@Generable' cannot derive a schema for '\(name)': a dictionary has no fixed keys; "
                + "use a '@Generable' struct, or an array of them"
        )
    }

    static func recursiveProperty(_ name: String, _ type: String) -> Self {
        Self(
            "recursiveProperty",
            "'@Generable' cannot derive a schema for '\(name)' because it contains '\(type)' itself; "
                + "write a recursive schema by hand with JSONSchema.reference(_:) and withDefinitions(_:)"
        )
    }

    static let duplicateGuide = Self("duplicateGuide", "A property takes one '@Guide'; merge these into one")

    static func guideTypeMismatch(_ label: String, _ expected: String, _ actual: String) -> Self {
        Self("guideTypeMismatch", "'@Guide(\(label):)' applies to \(expected) properties, not '\(actual)'")
    }

    static let fractionalIntegerBound = Self(
        "fractionalIntegerBound",
        "'@Guide(range:)' on an Int property needs whole-number bounds"
    )

    static let guideNotOnStoredProperty = Self(
        "guideNotOnStoredProperty",
        "'@Guide' applies to stored properties of a '@Generable' struct"
    )

    static let guideOnInitializedLet = Self(
        "guideOnInitializedLet",
        "'@Guide' has no effect here: Codable never decodes a 'let' that has an initial value"
    )
}
