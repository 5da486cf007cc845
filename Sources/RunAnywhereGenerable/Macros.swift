// Apps that write `@Generable` need `Generable` and `JSONSchema` in scope for the expansion,
// so this module brings the core along.
@_exported import RunAnywhere

/// Makes a struct or an enum `Generable`: adds the conformance and derives
/// `generationSchema` from the declaration, the way synthesized `Codable`
/// derives its JSON.
///
/// ```swift
/// @Generable(description: "A person in the text")
/// struct Contact {
///     @Guide(description: "Full name", pattern: "[A-Z][a-z]+( [A-Z][a-z]+)*")
///     var name: String
///     @Guide(range: 0...150)
///     var age: Int
///     var email: String?
///     @Guide(count: 1...3)
///     var tags: [Tag]
/// }
///
/// @Generable
/// enum Tag: String {
///     case friend, colleague
///     case family = "relative"
/// }
///
/// let contact = try await sdk.generate("Ada Lovelace, 36, a friend", as: Contact.self)
/// ```
///
/// - A struct becomes an object of its stored properties, in declaration order and keyed
///   like `Codable` (a `CodingKeys` enum renames or leaves out properties), with no other
///   members allowed. Each property takes its type's own `generationSchema`, so nested
///   `@Generable` types, arrays and optionals compose; `@Guide` narrows it. A `T?` property
///   is optional; every other one is required. Computed and static properties, and `let`s
///   with an initial value, are not decoded and so not in the schema.
/// - An enum without associated values becomes one of its `String` raw values, or of its
///   case names when it has no raw values (it then also encodes and decodes as those names).
/// - Classes, actors, enums with associated values, recursive structs and properties without
///   a written type are compile-time errors.
///
/// - Parameter description: What the type is, for the model; it becomes the schema's `description`.
@attached(
    extension,
    conformances: Generable,
    names: named(generationSchema),
    named(init(from:)),
    named(encode(to:))
)
public macro Generable(description: String? = nil) =
    #externalMacro(module: "RunAnywhereMacros", type: "GenerableMacro")

/// Describes a stored property of a `@Generable` struct to the model.
///
/// ```swift
/// @Guide(description: "The city, not the country")
/// var city: String
/// ```
///
/// - Parameter description: What the property holds; it becomes the property's `description`.
@attached(peer)
public macro Guide(description: String? = nil) =
    #externalMacro(module: "RunAnywhereMacros", type: "GuideMacro")

/// Bounds an `Int` property (inclusive).
///
/// ```swift
/// @Guide(description: "Stars", range: 1...5)
/// var rating: Int
/// ```
///
/// - Parameters:
///   - description: What the property holds.
///   - range: The smallest and largest values allowed.
@attached(peer)
public macro Guide(description: String? = nil, range: ClosedRange<Int>) =
    #externalMacro(module: "RunAnywhereMacros", type: "GuideMacro")

/// Bounds an `Int` property from below, as in `@Guide(range: 0...)`.
///
/// - Parameters:
///   - description: What the property holds.
///   - range: The smallest value allowed.
@attached(peer)
public macro Guide(description: String? = nil, range: PartialRangeFrom<Int>) =
    #externalMacro(module: "RunAnywhereMacros", type: "GuideMacro")

/// Bounds an `Int` property from above, as in `@Guide(range: ...100)`.
///
/// - Parameters:
///   - description: What the property holds.
///   - range: The largest value allowed.
@attached(peer)
public macro Guide(description: String? = nil, range: PartialRangeThrough<Int>) =
    #externalMacro(module: "RunAnywhereMacros", type: "GuideMacro")

/// Bounds a `Double` or `Float` property (inclusive).
///
/// ```swift
/// @Guide(range: 0.0...1.0)
/// var confidence: Double
/// ```
///
/// - Parameters:
///   - description: What the property holds.
///   - range: The smallest and largest values allowed.
@attached(peer)
public macro Guide(description: String? = nil, range: ClosedRange<Double>) =
    #externalMacro(module: "RunAnywhereMacros", type: "GuideMacro")

/// Bounds a `Double` or `Float` property from below, as in `@Guide(range: 0.0...)`.
///
/// - Parameters:
///   - description: What the property holds.
///   - range: The smallest value allowed.
@attached(peer)
public macro Guide(description: String? = nil, range: PartialRangeFrom<Double>) =
    #externalMacro(module: "RunAnywhereMacros", type: "GuideMacro")

/// Bounds a `Double` or `Float` property from above, as in `@Guide(range: ...1.0)`.
///
/// - Parameters:
///   - description: What the property holds.
///   - range: The largest value allowed.
@attached(peer)
public macro Guide(description: String? = nil, range: PartialRangeThrough<Double>) =
    #externalMacro(module: "RunAnywhereMacros", type: "GuideMacro")

/// Makes a `String` property match a regular expression (ECMA-262 syntax, matched whole).
///
/// ```swift
/// @Guide(description: "ISO date", pattern: #"\d{4}-\d{2}-\d{2}"#)
/// var date: String
/// ```
///
/// - Parameters:
///   - description: What the property holds.
///   - pattern: The regular expression the whole value matches.
@attached(peer)
public macro Guide(description: String? = nil, pattern: String) =
    #externalMacro(module: "RunAnywhereMacros", type: "GuideMacro")

/// Bounds how many elements an array property has (inclusive).
///
/// ```swift
/// @Guide(description: "Up to three keywords", count: 1...3)
/// var keywords: [String]
/// ```
///
/// - Parameters:
///   - description: What the property holds.
///   - count: The fewest and most elements allowed.
@attached(peer)
public macro Guide(description: String? = nil, count: ClosedRange<Int>) =
    #externalMacro(module: "RunAnywhereMacros", type: "GuideMacro")

/// Sets the fewest elements an array property has, as in `@Guide(count: 1...)`.
///
/// - Parameters:
///   - description: What the property holds.
///   - count: The fewest elements allowed.
@attached(peer)
public macro Guide(description: String? = nil, count: PartialRangeFrom<Int>) =
    #externalMacro(module: "RunAnywhereMacros", type: "GuideMacro")

/// Fixes how many elements an array property has.
///
/// ```swift
/// @Guide(count: 3)
/// var rgb: [Int]
/// ```
///
/// - Parameters:
///   - description: What the property holds.
///   - count: The exact number of elements.
@attached(peer)
public macro Guide(description: String? = nil, count: Int) =
    #externalMacro(module: "RunAnywhereMacros", type: "GuideMacro")

/// Limits a `String` property to one of the given values.
///
/// ```swift
/// @Guide(description: "Tone of the reply", anyOf: ["formal", "casual"])
/// var tone: String
/// ```
///
/// - Parameters:
///   - description: What the property holds.
///   - anyOf: The values allowed.
@attached(peer)
public macro Guide(description: String? = nil, anyOf: [String]) =
    #externalMacro(module: "RunAnywhereMacros", type: "GuideMacro")
