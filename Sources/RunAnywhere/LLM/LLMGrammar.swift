/// A GBNF grammar that every generated token must follow (llama.cpp's grammar format).
///
/// The model can only produce text the grammar accepts, and only ends when the grammar is
/// complete. A grammar that does not parse fails the generation with `.invalidGrammar`
/// before any token; it never falls back to unconstrained output.
///
/// ```swift
/// let yesNo = LLMGrammar(#"root ::= "yes" | "no""#)
/// let answer = try await sdk.generate("Is water wet? Answer yes or no.",
///                                     options: LLMGenerationOptions(maxTokens: 4, grammar: yesNo))
/// ```
public struct LLMGrammar: Sendable, Codable, Equatable {
    /// The grammar's rules, in GBNF.
    public var gbnf: String
    /// The rule the whole output must match.
    public var root: String

    /// Creates a grammar whose output matches the rule `root`.
    public init(_ gbnf: String, root: String = "root") {
        self.gbnf = gbnf
        self.root = root
    }

    /// Checks what can be checked without the engine: text to parse and a plain rule name.
    ///
    /// - Throws: `.invalidGrammar` naming the problem.
    public func validate() throws(SDKException) {
        guard !gbnf.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw SDKException(.invalidGrammar, "The grammar is empty")
        }
        guard !gbnf.contains("\0"), !root.contains("\0") else {
            throw SDKException(.invalidGrammar, "The grammar contains a NUL character")
        }
        let ruleName = root.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        guard !root.isEmpty, ruleName else {
            throw SDKException(.invalidGrammar, "The root rule '\(root)' is not a rule name (letters, digits, '-')")
        }
    }
}
