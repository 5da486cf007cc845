#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A type a model can generate: it decodes from JSON and describes that JSON with a schema.
///
/// Conform by hand, or let the `@Generable` macro (product `RunAnywhereGenerable`) derive
/// the schema from the stored properties:
///
/// ```swift
/// struct Contact: Generable {
///     var name: String
///     var age: Int
///     static var generationSchema: JSONSchema {
///         .object(["name": .string(minLength: 1), "age": .integer(minimum: 0, maximum: 150)])
///     }
/// }
/// let contact = try await sdk.generate("Ada Lovelace, 36", as: Contact.self)
/// ```
public protocol Generable: Codable, Sendable {
    /// The JSON Schema every generated value of this type follows.
    static var generationSchema: JSONSchema { get }
}

extension String: Generable {
    /// Any string.
    public static var generationSchema: JSONSchema { .string() }
}

extension Int: Generable {
    /// Any integer that fits `Int`.
    public static var generationSchema: JSONSchema { .integer() }
}

extension Double: Generable {
    /// Any number.
    public static var generationSchema: JSONSchema { .number() }
}

extension Float: Generable {
    /// Any number.
    public static var generationSchema: JSONSchema { .number() }
}

extension Bool: Generable {
    /// `true` or `false`.
    public static var generationSchema: JSONSchema { .boolean }
}

extension Array: Generable where Element: Generable {
    /// An array of the element's schema.
    public static var generationSchema: JSONSchema { .array(of: Element.generationSchema) }
}

extension Optional: Generable where Wrapped: Generable {
    /// The wrapped schema or `null`.
    public static var generationSchema: JSONSchema { .nullable(Wrapped.generationSchema) }
}
