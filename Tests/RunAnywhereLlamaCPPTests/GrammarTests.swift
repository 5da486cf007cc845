import Foundation
import RealEngineTestSupport
import RunAnywhereTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Grammar-constrained generation on llama.cpp", .serialized, .wholeMachine, .tags(.realEngine))
struct GrammarTests {
    static let yesNo = LLMGrammar(#"root ::= "yes" | "no""#)

    /// A small JSON object: a name and an age, in this order.
    static let person = LLMGrammar(
        #"""
        root   ::= "{" ws "\"name\"" ws ":" ws string ws "," ws "\"age\"" ws ":" ws number ws "}"
        string ::= "\"" [a-zA-Z ]{1,20} "\""
        number ::= [1-9] [0-9]?
        ws     ::= [ ]?
        """#
    )

    @Test(
        "Every sampled reply follows the grammar, at any temperature and seed, and ends when it is complete",
        arguments: SecondFamilyTests.families
    )
    func outputFollowsTheGrammar(model: String) async throws {
        try await withSDK(models: [model]) { sdk in
            try await SecondFamilyTests.load(model, in: sdk)
            for seed in UInt32(1)...6 {
                let options = LLMGenerationOptions(maxTokens: 8, temperature: 1.2, seed: seed, grammar: Self.yesNo)
                let result = try await sdk.generate("Is the sea salty?", options: options)
                #expect(["yes", "no"].contains(result.text), "\(model), seed \(seed): \(result.text)")
                #expect(result.finishReason == .stop)
            }
            for seed in UInt32(1)...4 {
                let options = LLMGenerationOptions(
                    maxTokens: 48,
                    temperature: 0.8,
                    seed: seed,
                    grammar: Self.person
                )
                let result = try await sdk.generate("Describe a person as JSON.", options: options)
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(result.text.utf8)) as? [String: Any],
                    "seed \(seed): \(result.text)"
                )
                #expect(object["name"] is String)
                #expect((object["age"] as? Int).map { (1...99).contains($0) } == true)
            }
        }
    }

    @Test(
        "A grammar that does not parse is invalidGrammar before any token; an empty one is refused before the engine",
        arguments: SecondFamilyTests.families
    )
    func invalidGrammars(model: String) async throws {
        try await withSDK(models: [model]) { sdk in
            try await SecondFamilyTests.load(model, in: sdk)
            let bad = [
                LLMGrammar(#"root ::= undefined-rule"#),
                LLMGrammar(#"root ::= "unclosed"#),
                LLMGrammar(#"root ::= "a""#, root: "missing"),
                LLMGrammar("   "),
                LLMGrammar(#"root ::= "a""#, root: "no spaces"),
            ]
            for grammar in bad {
                await expectCode(.invalidGrammar) {
                    try await sdk.generate("Hello", options: LLMGenerationOptions(maxTokens: 4, grammar: grammar))
                }
                var tokens = 0
                let stream = try await sdk.generateStream("Hello", options: LLMGenerationOptions(maxTokens: 4))
                for try await event in stream { if case .token = event { tokens += 1 } }
                #expect(tokens > 0, "the model still generates after a refused grammar")
            }
            // Streaming reports it as the stream's error, with no token before it.
            var streamed = 0
            do {
                let options = LLMGenerationOptions(maxTokens: 4, grammar: bad[0])
                for try await event in try await sdk.generateStream("Hello", options: options) {
                    if case .token = event { streamed += 1 }
                }
                Issue.record("the stream accepted an invalid grammar")
            } catch let error as SDKException {
                #expect(error.code == .invalidGrammar)
            }
            #expect(streamed == 0)
        }
    }

    @Test(
        "Hitting maxTokens or ignoring end of sequence mid-grammar ends the generation without crashing",
        arguments: SecondFamilyTests.families
    )
    func incompleteGrammarEndsCleanly(model: String) async throws {
        try await withSDK(models: [model]) { sdk in
            try await SecondFamilyTests.load(model, in: sdk)
            let sentence = "one two three four five six seven eight nine ten"
            let long = LLMGrammar("root ::= \"\(sentence)\"")
            let cut = try await sdk.generate("Count.", options: LLMGenerationOptions(maxTokens: 2, grammar: long))
            #expect(cut.finishReason == .length)
            #expect(sentence.hasPrefix(cut.text) && !cut.text.isEmpty)
            // End of sequence is allowed only once the grammar is complete, and then it ends
            // the generation even when asked to ignore it (accepting it would abort).
            let options = LLMGenerationOptions(
                maxTokens: 64,
                temperature: 0,
                ignoreEndOfSequence: true,
                grammar: long
            )
            let whole = try await sdk.generate("Count.", options: options)
            #expect(whole.text == sentence)
            #expect(whole.finishReason == .stop)
        }
    }

    @Test(
        "Constrained streaming gives the same text as a plain constrained generation, and greedy is reproducible",
        arguments: SecondFamilyTests.families
    )
    func streamingAndDeterminism(model: String) async throws {
        try await withSDK(models: [model]) { sdk in
            try await SecondFamilyTests.load(model, in: sdk)
            let options = LLMGenerationOptions(maxTokens: 48, temperature: 0, grammar: Self.person)
            let first = try await sdk.generate("Describe a person as JSON.", options: options)
            let second = try await sdk.generate("Describe a person as JSON.", options: options)
            #expect(first.text == second.text)
            var pieces = ""
            for try await event in try await sdk.generateStream("Describe a person as JSON.", options: options) {
                if case .token(let text, _) = event { pieces += text }
            }
            #expect(pieces == first.text)
        }
    }
}
