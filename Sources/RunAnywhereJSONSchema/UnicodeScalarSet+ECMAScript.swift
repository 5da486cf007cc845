import RunAnywhereGBNF

/// The classes ECMAScript patterns and JSON strings name.
extension UnicodeScalarSet {
    /// ECMAScript `\w`.
    static let wordCharacters = UnicodeScalarSet([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    /// ECMAScript `\s`: white space and line terminators.
    static let whitespace = UnicodeScalarSet([
        0x09...0x0D, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A, 0x2028...0x2029,
        0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF,
    ])
    /// ECMAScript line terminators, which `.` does not match.
    static let lineTerminators = UnicodeScalarSet([0x0A...0x0A, 0x0D...0x0D, 0x2028...0x2029])
    /// The scalars a JSON string must escape.
    static let jsonEscaped = UnicodeScalarSet([0x00...0x1F, 0x22...0x22, 0x5C...0x5C])
}
