/// A grammar that cannot be used: it does not parse, fails llama.cpp's checks, or matches no
/// finite text. The SDK reports it as `invalidGrammar`.
package struct GBNFError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, and where when the text says.
    package let message: String

    /// An error saying `message`.
    package init(_ message: String) {
        self.message = message
    }

    /// The message.
    package var description: String { message }
}
