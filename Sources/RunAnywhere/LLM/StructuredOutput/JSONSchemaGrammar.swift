import RunAnywhereGBNF
import RunAnywhereJSON

/// A GBNF grammar that makes a model write JSON matching a JSON Schema.
///
/// ```swift
/// let schema = JSONSchema.object([
///     "name": .string(minLength: 1),
///     "age": .integer(minimum: 0, maximum: 150),
/// ])
/// let converted = try JSONSchemaGrammar(schema)
/// let options = LLMGenerationOptions(maxTokens: 64, grammar: converted.grammar)
/// // … generate, parse the text, then confirm:
/// let violations = converted.validate(try JSONValue(parsing: text))
/// ```
///
/// The grammar enforces `type`, `enum`, `const`, `properties`, `required`,
/// `additionalProperties`, `items`, `prefixItems`, `minItems`, `maxItems`, `minLength`,
/// `maxLength`, `pattern` (ECMA-262 without lookaround or backreferences), `format` (`date`,
/// `time`, `date-time`, `uuid`, `email`, `uri`, `hostname`, `ipv4`), integer bounds exactly, number
/// bounds exactly (written without exponent, at most 15 significant digits), `anyOf`, `allOf`
/// and local `$ref`s, recursive ones included. Properties are written in schema order,
/// required ones first; integers and integer parts have at most 16 digits unless a bound needs
/// more. `oneOf` is written as `anyOf` (a grammar cannot exclude a value that matches two
/// branches); ``validate(_:)`` checks it exactly. Between tokens the grammar allows at most
/// one space and never a newline: small models otherwise wander off into whitespace.
///
/// Keywords a grammar cannot enforce (`not`, `if`, `uniqueItems`, `multipleOf`,
/// `patternProperties`, `contains`, a remote `$ref`, …) throw `.unsupportedSchema` naming the
/// keyword and its JSON pointer, unless `Options.bestEffort` is set: then they
/// are left out of the grammar and listed in ``unenforced``, and ``validate(_:)`` still checks
/// them. A schema that contradicts itself or cannot be completed throws `.invalidSchema`.
public struct JSONSchemaGrammar: Sendable {
    /// How a schema becomes a grammar (`strictObjects`, `bestEffort`); the compiler's own
    /// options type, under the name the SDK has always used.
    public typealias Options = JSONSchemaCompilerOptions

    /// The schema the grammar was made from.
    public let schema: JSONSchema
    /// The options it was made with.
    public let options: Options
    /// The grammar; its root rule is `root`.
    public let grammar: LLMGrammar
    /// The keywords the grammar does not enforce (only with best effort; otherwise empty).
    public let unenforced: [JSONSchemaKeywordLocation]

    /// The rules behind ``grammar``, for tests.
    let rules: GBNFRuleSet

    /// Converts `schema`.
    ///
    /// - Throws: `.unsupportedSchema` for a keyword the grammar cannot enforce (without best
    ///   effort), `.invalidSchema` for a schema that is malformed, contradicts itself, refers
    ///   to nothing, or recurses without a base case; each message names the JSON pointer.
    public init(_ schema: JSONSchema, options: Options = Options()) throws(SDKException) {
        var converter = JSONSchemaConverter(
            schema: schema,
            options: options
        )
        let gbnf: String
        do {
            gbnf = try converter.convert()
        } catch {
            throw SDKException(error)
        }
        self.schema = schema
        self.options = options
        self.grammar = LLMGrammar(gbnf, root: "root")
        self.unenforced = converter.unenforced
        self.rules = converter.rules
    }

    /// Validates `instance` against the schema with the same reading of objects as the
    /// grammar (`Options.strictObjects`); an empty result means valid.
    public func validate(_ instance: JSONValue) -> [JSONSchemaViolation] {
        schema.validate(instance, strictObjects: options.strictObjects)
    }
}
