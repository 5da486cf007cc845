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
    /// Words that wake a lazy grammar. Empty (the default), the grammar applies from the
    /// first token. Otherwise the output is free until the model writes one of these
    /// words; from the word on (the word included) it must match `root`. Tool calls use
    /// this: the model may answer in prose, or write `<tool_call>` and a well-typed call.
    /// A word the prompt already ends with does not count: only generated text wakes it.
    public var triggerWords: [String]
    /// Regular expressions that wake a lazy grammar, as an engine's chat layer writes them for
    /// a model's own call syntax (the grammar applies from the first capture group, else from
    /// the match). Only the engine's own chat layer sets them: a pattern that does not compile
    /// would abort the engine.
    package var triggerExpressions: [String] = []
    /// Text the grammar reads before the first generated token: the assistant-turn opening
    /// that the chat layer's call grammars start with, already at the end of the prompt.
    package var prefix = ""

    /// Creates a grammar whose output matches the rule `root`.
    public init(_ gbnf: String, root: String = "root") {
        self.gbnf = gbnf
        self.root = root
        self.triggerWords = []
    }

    /// A lazy grammar: free text until one of `words` is generated, then `root` from that
    /// word on.
    ///
    /// ```swift
    /// let call = LLMGrammar.lazy(#"root ::= "<call>" [a-z]+ "</call>""#, triggeredBy: ["<call>"])
    /// ```
    public static func lazy(_ gbnf: String, root: String = "root", triggeredBy words: [String]) -> LLMGrammar {
        var grammar = LLMGrammar(gbnf, root: root)
        grammar.triggerWords = words
        return grammar
    }

    /// Whether the grammar waits for a trigger word.
    public var isLazy: Bool { !triggerWords.isEmpty || !triggerExpressions.isEmpty }

    /// The engine's trigger patterns: ``triggerExpressions``, then for each word any text and
    /// the word as the first capture group. Every character of a word is escaped, so no word
    /// can make an invalid regular expression (which would abort the engine).
    package var triggerPatterns: [String] {
        triggerExpressions + triggerWords.map { #"[\s\S]*?("# + Self.literalPattern($0) + #")[\s\S]*"# }
    }

    /// `text` as a regular expression that matches it literally: every ASCII character but
    /// letters, digits and spaces escaped, so no text can make an invalid expression.
    package static func literalPattern(_ text: String) -> String {
        text.unicodeScalars.map { scalar -> String in
            let character = Character(scalar)
            if character.isASCII, character.isLetter || character.isNumber || character == " " {
                return String(character)
            }
            return scalar.value < 0x80 ? "\\" + String(character) : String(character)
        }.joined()
    }

    enum CodingKeys: String, CodingKey {
        case gbnf
        case root
        case triggerWords
    }

    /// Decodes a grammar; `triggerWords` may be absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        gbnf = try container.decode(String.self, forKey: .gbnf)
        root = try container.decodeIfPresent(String.self, forKey: .root) ?? "root"
        triggerWords = try container.decodeIfPresent([String].self, forKey: .triggerWords) ?? []
    }

    /// Checks what can be checked without the engine: text to parse and a plain rule name.
    ///
    /// - Throws: `.invalidGrammar` naming the problem.
    public func validate() throws(SDKException) {
        guard !gbnf.trimmed().isEmpty else {
            throw SDKException(.invalidGrammar, "The grammar is empty")
        }
        guard !gbnf.contains("\0"), !root.contains("\0") else {
            throw SDKException(.invalidGrammar, "The grammar contains a NUL character")
        }
        let ruleName = root.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        guard !root.isEmpty, ruleName else {
            throw SDKException(.invalidGrammar, "The root rule '\(root)' is not a rule name (letters, digits, '-')")
        }
        guard !triggerWords.contains(where: { $0.isEmpty || $0.contains("\0") || $0.contains("\n") }) else {
            throw SDKException(.invalidGrammar, "A trigger word is empty or contains a NUL or newline character")
        }
    }
}
