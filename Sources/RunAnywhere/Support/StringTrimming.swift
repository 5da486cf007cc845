extension StringProtocol {
    /// The text without the whitespace and line breaks at either end.
    ///
    /// Foundation's `trimmingCharacters(in: .whitespacesAndNewlines)` does the same, but on
    /// Linux it lives in full Foundation, whose first call costs pages a command that only
    /// reads its arguments and runs a model never needs otherwise.
    package func trimmed() -> String {
        trimmed(while: \.isWhitespace)
    }

    /// The text without the spaces and tabs at either end; line breaks stay
    /// (`trimmingCharacters(in: .whitespaces)`).
    package func trimmedSpaces() -> String {
        trimmed { $0.isWhitespace && !$0.isNewline }
    }

    /// The text without the characters at either end for which `predicate` holds.
    package func trimmed(while predicate: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !predicate($0) }), let last = lastIndex(where: { !predicate($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
