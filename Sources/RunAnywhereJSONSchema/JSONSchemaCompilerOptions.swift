/// How a schema becomes a grammar: what objects allow, and whether keywords a grammar cannot
/// enforce are refused or left out. The SDK's `JSONSchemaGrammar.Options` is this type.
public struct JSONSchemaCompilerOptions: Sendable, Codable, Equatable {
    /// Objects without `additionalProperties` allow no other members (as OpenAI's strict
    /// mode). Off: JSON Schema's meaning (extra members allowed).
    public var strictObjects: Bool
    /// Keywords that cannot be enforced are left out of the grammar and listed, instead of
    /// refused.
    public var bestEffort: Bool

    /// Options with JSON Schema's meaning of objects and no unenforced keywords allowed by
    /// default.
    public init(strictObjects: Bool = false, bestEffort: Bool = false) {
        self.strictObjects = strictObjects
        self.bestEffort = bestEffort
    }

    /// Decodes the options; a missing option takes its default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        strictObjects = try container.decodeIfPresent(Bool.self, forKey: .strictObjects) ?? false
        bestEffort = try container.decodeIfPresent(Bool.self, forKey: .bestEffort) ?? false
    }
}
