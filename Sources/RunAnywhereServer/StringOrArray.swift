import Foundation

/// A field OpenAI accepts as one string or as an array of strings (`stop`, `prompt`, `input`).
struct StringOrArray: Decodable, Sendable {
    /// The strings, one for a single string.
    var values: [String]

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let one = try? container.decode(String.self) {
            values = [one]
        } else if let many = try? container.decode([String].self) {
            values = many
        } else {
            throw DecodingError.typeMismatch(
                String.self,
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "expected a string or an array of strings"
                )
            )
        }
    }
}
