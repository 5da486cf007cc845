import Foundation
@_spi(Backend) import RunAnywhere
import RunAnywhereGBNF
import Testing

/// A JSON object with surrogate-safe `\u` escapes (a lone surrogate is not JSON any parser takes).
private let jsonObjectGrammar = #"""
    root   ::= object
    value  ::= object | array | string | number | ("true" | "false" | "null") ws
    object ::=
      "{" ws (
                string ":" ws value
        ("," ws string ":" ws value)*
      )? "}" ws
    array  ::= "[" ws ( value ("," ws value)* )? "]" ws
    string ::=
      "\"" (
        [^"\\\x7F\x00-\x1F] |
        "\\" (["\\/bfnrt] | "u" [0-9a-cA-Ce-fE-F] [0-9a-fA-F]{3}) # escapes
      )* "\"" ws
    number ::= "-"? ([0-9] | [1-9] [0-9]{0,15}) ("." [0-9]+)? ([eE] [-+]? [0-9]{1,2})? ws
    ws ::= | " " | "\n" [ \t]{0,20}
    """#

/// llama.cpp's grammars/arithmetic.gbnf.
private let arithmeticGrammar = #"""
    root  ::= (expr "=" ws term "\n")+
    expr  ::= term ([-+*/] term)*
    term  ::= ident | num | "(" ws expr ")" ws
    ident ::= [a-z] [a-z0-9_]* ws
    num   ::= [0-9]+ ws
    ws    ::= [ \t\n]*
    """#

private func makeGenerator(_ gbnf: String, root: String = "root") throws -> GBNFGenerator {
    try GBNFGenerator(GBNFGrammar(parsing: gbnf, root: root))
}

private func sample(_ generator: GBNFGenerator, seed: UInt64, budget: Int = 200) -> GBNFGenerator.Sample {
    var random = SplitMix(seed: seed)
    return generator.generate(budget: budget, using: &random)
}

private func expectInvalid(_ gbnf: String, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let error = #expect(throws: GBNFError.self, sourceLocation: sourceLocation) {
        try GBNFGenerator(GBNFGrammar(parsing: gbnf))
    }
    #expect(error?.message.contains(message) == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
}

@Suite("GBNF grammars")
struct GBNFGrammarTests {
    // MARK: Parsing

    @Test("Literals decode every escape llama.cpp knows")
    func literalEscapes() throws {
        let grammar = try GBNFGrammar(parsing: #"root ::= "a\n\t\r\"\\\[\]\-\x41\u00e9\U0001F600é""#)
        #expect(grammar.rules["root"] == .literal("a\n\t\r\"\\[]-Aé\u{1F600}é"))
        // A code point no text holds makes a literal that matches nothing.
        #expect(try GBNFGrammar(parsing: #"root ::= "a\uD800""#).rules["root"] == .characters(UnicodeScalarSet()))
    }

    @Test("Character classes take ranges, negation, escapes and a dash at either end")
    func characterClasses() throws {
        let cases: [(String, GBNFExpression)] = [
            ("[a-z0-9_]", .characters(UnicodeScalarSet([0x61...0x7A, 0x30...0x39, 0x5F...0x5F]))),
            (#"[^"\\\x00-\x1F]"#, .characters(UnicodeScalarSet([0x22...0x22, 0x5C...0x5C, 0x00...0x1F]).inverted)),
            ("[-a-]", .characters(UnicodeScalarSet(characters: "-a"))),
            (#"[\]\[\-\n]"#, .characters(UnicodeScalarSet(characters: "][-\n"))),
            ("[z-a]", .characters(UnicodeScalarSet())),
            ("[^z-a]", .characters(.all)),
            ("[ぁ-ゟ]", .characters(UnicodeScalarSet([0x3041...0x309F]))),
            ("[]", .empty),
            (".", .characters(.all)),
        ]
        for (body, expected) in cases {
            #expect(try GBNFGrammar(parsing: "root ::= \(body)").rules["root"] == expected, "\(body)")
        }
    }

    @Test("Sequences, alternatives, groups and references nest as written")
    func structure() throws {
        let grammar = try GBNFGrammar(
            parsing: """
                root ::= "a" (b | "c" d-2)  item-1 | "e"
                b ::= "b"
                d-2 ::= "d"
                item-1 ::= ("x"
                  # a comment inside the group
                  | "y"
                )
                """
        )
        #expect(
            grammar.rules["root"]
                == .choice([
                    .sequence([
                        .literal("a"), .choice([.rule("b"), .sequence([.literal("c"), .rule("d-2")])]), .rule("item-1"),
                    ]),
                    .literal("e"),
                ])
        )
        #expect(grammar.rules["item-1"] == .choice([.literal("x"), .literal("y")]))
        #expect(grammar.ruleNames == ["root", "b", "d-2", "item-1"])
    }

    @Test("Every repetition form keeps its bounds; a maximum above 2000 means none")
    func repetitions() throws {
        let cases: [(String, Int, Int?)] = [
            ("*", 0, nil), ("+", 1, nil), ("?", 0, 1), ("{3}", 3, 3), ("{2,}", 2, nil), ("{2,5}", 2, 5),
            ("{ 0 , 4 }", 0, 4), ("{1,2001}", 1, nil),
        ]
        for (suffix, min, max) in cases {
            let grammar = try GBNFGrammar(parsing: "root ::= \"a\"\(suffix)")
            #expect(grammar.rules["root"] == .repetition(.literal("a"), min: min, max: max), "\(suffix)")
        }
        let stacked = try GBNFGrammar(parsing: #"root ::= ("a" "b")?{2}"#)
        #expect(
            stacked.rules["root"]
                == .repetition(.repetition(.sequence([.literal("a"), .literal("b")]), min: 0, max: 1), min: 2, max: 2)
        )
    }

    @Test("Newlines continue a rule only inside parentheses and after '|', CRLF included")
    func newlines() throws {
        let grammar = try GBNFGrammar(parsing: "root ::= \"a\" |\r\n  \"b\"\r\nother ::= (\n\"c\"\n)\r\n")
        #expect(grammar.rules["root"] == .choice([.literal("a"), .literal("b")]))
        #expect(grammar.rules["other"] == .literal("c"))
        expectInvalid("root ::= \"a\"\n| \"b\"", "Expected a rule name, found '|' at line 2 column 1")
    }

    @Test("Repetitions of what can be empty are refused only where llama.cpp sees left recursion")
    func emptyRepetitions() throws {
        let grammar = try GBNFGrammar(parsing: "root ::= (\"a\"?)* (x)* y* x{2,5}\nx ::= | \"a\"\ny ::= x")
        #expect(grammar.rules["root"] != nil)
        expectInvalid("root ::= x+\nx ::= | \"a\"", "Left recursion in a repetition of 'x'")
        expectInvalid("root ::= x{2,}\nx ::= \"a\" | \"\"", "Left recursion in a repetition of 'x'")
    }

    @Test("A later definition of a rule replaces the earlier one, as in llama.cpp")
    func redefinition() throws {
        let grammar = try GBNFGrammar(parsing: "root ::= \"a\"\nroot ::= \"b\"")
        #expect(grammar.rules["root"] == .literal("b"))
        #expect(grammar.ruleNames == ["root"])
    }

    @Test("A root other than 'root' can be named")
    func otherRoot() throws {
        let generator = try makeGenerator("call ::= \"<call>\" [a-z]{3} \"</call>\"", root: "call")
        #expect(sample(generator, seed: 1).text.wholeMatch(of: /<call>[a-z]{3}<\/call>/) != nil)
    }

    // MARK: Errors

    @Test(
        "Malformed grammars are invalidGrammar, with the line and column of the problem",
        arguments: [
            ("root ::= \"abc", "Unclosed string literal at line 1 column 10"),
            ("root ::= [a-z", "Unclosed character class at line 1 column 10"),
            ("\n\nroot ::= \"a\\qb\"", "Unknown escape '\\q' at line 3 column 12"),
            ("root ::= \"\\x4\"", "Expected 2 hex digits in the escape at line 1 column 11"),
            ("root ::= [\\u12]", "Expected 4 hex digits in the escape at line 1 column 11"),
            ("root ::= item\nitem ::= \"x\" missing-rule", "Undefined rule 'missing-rule' at line 2 column 14"),
            ("start ::= \"x\"", "The grammar has no rule 'root' (its rules: start)"),
            ("", "Expected a rule, found the end of the grammar at line 1 column 1"),
            ("  # only a comment\n\n", "Expected a rule, found the end of the grammar at line 3 column 1"),
            ("root ::= (\"a\" | \"b\"", "Unclosed parenthesis at line 1 column 10"),
            ("root ::= (\"a\" ]", "Expected ')', found ']' at line 1 column 15"),
            ("root ::= \"a\" )", "Expected a newline or the end of the grammar, found ')' at line 1 column 14"),
            ("root \"a\"", "Expected '::=' after the rule name 'root', found '\"' at line 1 column 6"),
            ("root ::= * \"a\"", "Expected an item before the repetition at line 1 column 10"),
            ("root ::= \"a\" \"\"*", "Expected an item before the repetition at line 1 column 16"),
            ("root ::= \"a\"{3,1}", "Repetition maximum 1 below its minimum 3 at line 1 column 13"),
            ("root ::= \"a\"{2001}", "Repetition count above 2000 at line 1 column 13"),
            ("root ::= \"a\"{10}{300}", "Repetition would make more than 2000 rules at line 1 column 17"),
            ("root ::= \"a\"{x}", "Expected an integer, found 'x' at line 1 column 14"),
            ("root ::= \"a\"{2;", "Expected ',' or '}', found ';' at line 1 column 15"),
            ("root ::= <think> \"a\"", "Token matches like '<…>' need a model's vocabulary"),
            (
                "root ::= \"a\" list\nlist ::= list \",\" \"b\" | \"b\"",
                "Left recursion in rule 'list' at line 2 column 1"
            ),
            ("root ::= empty root \"a\" | \"b\"\nempty ::= \"x\"?", "Left recursion in rule 'root' at line 1 column 1"),
            ("root ::= \"a\u{0}\"", "NUL character at line 1 column 12"),
            (
                "root ::= x*\nx ::= \"\" | \"a\"",
                "Left recursion in a repetition of 'x', which has an empty alternative at line 1 column 11"
            ),
            (
                "root ::= (\"\" | \"a\")*",
                "Left recursion in a repetition of something that can be empty at line 1 column 20"
            ),
            ("root ::= \"a\"?+", "Left recursion in a repetition of something that can be empty at line 1 column 14"),
        ]
    )
    func malformed(_ gbnf: String, _ message: String) {
        expectInvalid(gbnf, message)
    }

    @Test("Deep nesting is refused instead of exhausting the stack")
    func deepNesting() throws {
        expectInvalid("root ::= " + String(repeating: "(", count: 100_000), "Groups nested more than 100 deep")
        expectInvalid("root ::= \"a\"" + String(repeating: "?", count: 100_000), "Expression nested too deeply")
        let fine = "root ::= " + String(repeating: "(", count: 50) + "\"a\"" + String(repeating: ")", count: 50)
        #expect(sample(try makeGenerator(fine), seed: 1).text == "a")
    }

    @Test("Text that is not a grammar never crashes the parser")
    func garbage() {
        var random = SplitMix(seed: 99)
        let alphabet = Array(#"ab-:= |()[]^{},019*+?."\xun#"#.unicodeScalars) + ["\n", "\r", "é"]
        for _ in 0..<2_000 {
            var text = "root ::= "
            for _ in 0..<Int(random.next() % 24) {
                text.unicodeScalars.append(alphabet[Int(random.next() % UInt64(alphabet.count))])
            }
            guard let generator = try? makeGenerator(text) else { continue }
            #expect(sample(generator, seed: random.next(), budget: 50).text.unicodeScalars.count <= 1 << 16)
        }
    }

    // MARK: Generation

    @Test("Texts of a JSON object grammar are JSON objects")
    func jsonObjects() throws {
        let generator = try makeGenerator(jsonObjectGrammar)
        var shapes: Set<Int> = []
        for seed: UInt64 in 0..<300 {
            let result = sample(generator, seed: seed, budget: 300)
            #expect(result.isComplete)
            let value = try JSONValue(parsing: result.text)
            let object = try #require(value.objectValue, "\(result.text)")
            shapes.insert(object.count)
        }
        #expect(shapes.count > 3, "objects of several sizes: \(shapes)")
    }

    @Test("A recursive grammar ends, and past its budget takes the shortest way out")
    func recursionTerminates() throws {
        let nested = try makeGenerator(#"root ::= "(" root ")" | "x""#)
        let arithmetic = try makeGenerator(arithmeticGrammar)
        let tree = try makeGenerator(
            """
            root ::= node
            node ::= "(" node node ")" | "(" node ")" | leaf
            leaf ::= [a-z]
            """
        )
        for seed: UInt64 in 0..<200 {
            for budget in [0, 10, 200] {
                let parens = sample(nested, seed: seed, budget: budget).text
                let depth = parens.prefix { $0 == "(" }.count
                #expect(parens == String(repeating: "(", count: depth) + "x" + String(repeating: ")", count: depth))
                #expect(depth <= max(budget, GBNFGenerator.maximumDepth))
                #expect(sample(arithmetic, seed: seed, budget: budget).isComplete)
                let trees = sample(tree, seed: seed, budget: budget)
                #expect(trees.isComplete)
                #expect(trees.text.count <= 4 * budget + 8)
            }
        }
        #expect(sample(nested, seed: 5, budget: 0).text == "x")
    }

    @Test("Repetition bounds hold for every seed, and every count in them occurs")
    func repetitionBounds() throws {
        let generator = try makeGenerator(
            #"root ::= [a-z]{2,5} "-" [0-9]{3} "-" "x"? "y"* [A-Z]+ ("ab"){0,2} [0-9]{2,}"#
        )
        let pattern = /([a-z]{2,5})-[0-9]{3}-x?y*[A-Z]+(?:ab){0,2}[0-9]{2,}/
        var counts: Set<Int> = []
        for seed: UInt64 in 0..<500 {
            let text = sample(generator, seed: seed).text
            let match = try #require(text.wholeMatch(of: pattern), "\(text)")
            counts.insert(match.1.count)
        }
        #expect(counts == [2, 3, 4, 5])
    }

    @Test("The same grammar and seed give the same text; other seeds give other texts")
    func determinism() throws {
        let generator = try makeGenerator(jsonObjectGrammar)
        let again = try makeGenerator(jsonObjectGrammar)
        for seed: UInt64 in 0..<50 {
            #expect(sample(generator, seed: seed) == sample(again, seed: seed))
        }
        let texts = Set((0..<20).map { sample(generator, seed: UInt64($0)).text })
        #expect(texts.count > 10)
    }

    @Test(
        "A grammar with no finite text is invalidGrammar",
        arguments: [
            #"root ::= "a" root"#,
            "root ::= a\na ::= b \"x\"\nb ::= \"y\" a",
            #"root ::= [^\x00-\U0010FFFF]"#,
            #"root ::= [\uD800-\uDFFF]"#,
            #"root ::= "\uD800""#,
            #"root ::= [b-a] | "x" root"#,
        ]
    )
    func noFiniteText(_ gbnf: String) {
        expectInvalid(gbnf, "matches no finite text")
    }

    @Test("Shortest lengths come from a fixed point over the rules")
    func shortestLengths() throws {
        let generator = try makeGenerator(
            """
            root ::= a | b b
            a ::= "(" a ")" | "long-text"
            b ::= "bb" | c
            c ::= [x]{3} | "y" c
            never ::= "z" never
            """
        )
        #expect(generator.shortestLength(ofRule: "a") == 9)
        #expect(generator.shortestLength(ofRule: "c") == 3)
        #expect(generator.shortestLength(ofRule: "b") == 2)
        #expect(generator.shortestLength(ofRule: "root") == 4)
        #expect(generator.shortestLength(ofRule: "never") == nil)
        #expect(generator.shortestLength(ofRule: "missing") == nil)
    }

    @Test("Characters come from printable ASCII, letters and digits first, others only when required")
    func characterChoice() throws {
        func characters(_ gbnf: String) throws -> Set<Unicode.Scalar> {
            let generator = try makeGenerator(gbnf)
            return Set((0..<100).flatMap { sample(generator, seed: UInt64($0)).text.unicodeScalars })
        }
        let any = try characters("root ::= .{8}")
        #expect(any.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) }, "\(any)")
        let notLetters = try characters(#"root ::= [^a-zA-Z0-9]{8}"#)
        #expect(notLetters.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "\\" })
        #expect(try characters(#"root ::= [^a-zA-Z0-9 !#-/:-@\[\]-`{-~]"#) == ["\"", "\\"])
        #expect(try characters(#"root ::= [\x00-\x1F]"#).allSatisfy { $0.value >= 1 && $0.value < 0x20 })
        let wide = try characters(#"root ::= [^\x00-\x7F]{4}"#)
        #expect(wide.allSatisfy { $0.value >= 0x80 })
        #expect(try characters(#"root ::= [é-ü]"#).allSatisfy { (0xE9...0xFC).contains($0.value) })
    }

    @Test("A text whose shortest form is longer than the limit stops there, marked incomplete")
    func limit() throws {
        let generator = try makeGenerator(#"root ::= ("x"{2000}){2000}"#)
        var random = SplitMix(seed: 1)
        let result = generator.generate(budget: 10, limit: 5_000, using: &random)
        #expect(!result.isComplete)
        #expect(result.text == String(repeating: "x", count: 5_000))
    }

    @Test("An empty grammar text and rules that can only be empty give the empty text")
    func emptyTexts() throws {
        #expect(sample(try makeGenerator(#"root ::= """#), seed: 1).text == "")
        #expect(sample(try makeGenerator("root ::= a? b{0,3}\na ::= \"\"\nb ::= []"), seed: 1).text == "")
    }

    // MARK: Printing, matching and checks

    @Test("Printed rules parse back to the same tree, a class that matches nothing included")
    func printAndParse() throws {
        var rules = GBNFRuleSet()
        let word = rules.add("word", .repeating(.characters(UnicodeScalarSet([0x61...0x7A])), min: 1, max: nil))
        let ending = GBNFExpression.optional(.anyOf([.literal("!"), .characters(UnicodeScalarSet())]))
        rules.define(
            "root",
            .concat([.literal("say \"hi\"\n"), word, ending, .repeating(.literal("ab"), min: 2, max: 5)])
        )
        let text = rules.gbnf(root: "root")
        #expect(try GBNFGrammar(parsing: text).rules == rules.rules, "\(text)")
    }

    @Test("The matcher accepts every text the generator writes, and refuses one made longer")
    func matcherAgreesWithGenerator() throws {
        let grammar = try GBNFGrammar(parsing: arithmeticGrammar)
        let generator = try GBNFGenerator(grammar)
        let matcher = GBNFMatcher(grammar)
        for seed: UInt64 in 0..<100 {
            let text = sample(generator, seed: seed, budget: 40).text
            #expect(matcher.accepts(text), "\(text)")
            #expect(!matcher.accepts(text + "="), "\(text)")
        }
        #expect(GBNFMatcher(try GBNFGrammar(parsing: #"root ::= ("a"?){2} "b""#)).accepts("b"))
    }

    @Test("The strict check also refuses repeating what can be empty; the parser's follows llama.cpp")
    func strictRepetitions() throws {
        let rules: [String: GBNFExpression] = [
            "root": .repetition(.rule("maybe"), min: 0, max: nil),
            "maybe": .repetition(.literal("a"), min: 0, max: 1),
        ]
        #expect(GBNFAnalysis.leftRecursiveRule(rules, order: ["root", "maybe"], strictRepetitions: true) == "root")
        #expect(GBNFAnalysis.leftRecursiveRule(rules, order: ["root", "maybe"], strictRepetitions: false) == nil)
        #expect(GBNFAnalysis.nullableRules(rules, among: ["root", "maybe"]) == ["root", "maybe"])
        let cycle: [String: GBNFExpression] = [
            "a": .sequence([.rule("b"), .literal("x")]), "b": .choice([.rule("a"), .literal("y")]),
        ]
        #expect(GBNFAnalysis.leftRecursiveRule(cycle, order: ["a", "b"], strictRepetitions: false) == "a")
        #expect(GBNFAnalysis.unproductiveRules(["a": .sequence([.literal("x"), .rule("a")])], among: ["a"]) == ["a"])
    }
}
