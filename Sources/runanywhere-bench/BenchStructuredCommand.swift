import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BenchCommand {
    /// Constrained against free generation on the same model, prompt and threads.
    struct Structured: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "structured",
            abstract: "Generation speed with a grammar against without one, interleaved in one run."
        )

        static let defaultPrompt = "List twenty words about the sea as a JSON array of strings."

        /// A JSON array of at least sixteen lowercase words: long enough to measure the speed.
        static let defaultGrammar = #"""
            root ::= "[" ws word (ws "," ws word){15,} ws "]"
            word ::= "\"" [a-z]{2,12} "\""
            ws   ::= [ \n]?
            """#

        @OptionGroup var output: BenchOutputOptions
        @Option(help: "Model id.") var model = CLI.Defaults.llm
        @Option(help: "Prompt text.") var prompt = defaultPrompt
        @Option(name: .customLong("grammar"), help: "A GBNF file (default: a JSON array of words).") var grammarFile:
            String?
        @Option(help: "Most tokens generated per repetition.") var tokens = 64
        @Option(help: "Measured repetitions of each, interleaved (after a warm-up of each).") var reps = 7
        @Option(help: "Decoding threads for both.") var threads = ProcessInfo.processInfo.activeProcessorCount

        struct Sample: Codable {
            var generatedTokens: Int
            var tokensPerSecond: Double
        }

        struct Report: Encodable {
            var model: String
            var threads: Int
            var reps: Int
            var freeTokensPerSecond: Double
            var constrainedTokensPerSecond: Double
            var ratio: Double
            var constrainedTokens: Int
            var constrainedText: String
            var freeSamples: [Sample]
            var constrainedSamples: [Sample]
        }

        func execute() async throws {
            guard reps >= 1, tokens >= 2, threads >= 1 else {
                throw ValidationError("--reps, --threads must be at least 1 and --tokens at least 2")
            }
            try await CLI.start(output.global)
            let gbnf = try grammarFile.map { try String(contentsOfFile: $0, encoding: .utf8) } ?? Self.defaultGrammar
            try await RunAnywhere.loadModel(model, threads: threads)
            let free = LLMGenerationOptions(
                maxTokens: tokens,
                temperature: 0,
                repetitionPenalty: 1.1,
                threads: threads,
                ignoreEndOfSequence: true,
                reusePromptCache: false
            )
            var constrained = free
            constrained.grammar = LLMGrammar(gbnf)
            _ = try await RunAnywhere.generate(prompt, options: free)
            var last = try await RunAnywhere.generate(prompt, options: constrained)
            var freeSamples: [Sample] = []
            var constrainedSamples: [Sample] = []
            // Interleaved, so drift in the machine's speed falls on both alike.
            for _ in 0..<reps {
                let plain = try await RunAnywhere.generate(prompt, options: free)
                freeSamples.append(
                    Sample(generatedTokens: plain.generatedTokens, tokensPerSecond: plain.tokensPerSecond)
                )
                last = try await RunAnywhere.generate(prompt, options: constrained)
                constrainedSamples.append(
                    Sample(generatedTokens: last.generatedTokens, tokensPerSecond: last.tokensPerSecond)
                )
            }
            try await RunAnywhere.unloadModel()
            let freeTps = CLI.median(freeSamples.map(\.tokensPerSecond))
            let constrainedTps = CLI.median(constrainedSamples.map(\.tokensPerSecond))
            let report = Report(
                model: model,
                threads: threads,
                reps: reps,
                freeTokensPerSecond: freeTps,
                constrainedTokensPerSecond: constrainedTps,
                ratio: freeTps > 0 ? constrainedTps / freeTps : 0,
                constrainedTokens: last.generatedTokens,
                constrainedText: last.text,
                freeSamples: freeSamples,
                constrainedSamples: constrainedSamples
            )
            if output.json { return try CLI.printJSON(report) }
            print("Structured generation — \(model), \(threads) threads, median of \(reps)")
            print("  free:        \(CLI.format(freeTps)) tok/s")
            print("  constrained: \(CLI.format(constrainedTps)) tok/s (\(last.generatedTokens) tokens)")
            print("  ratio:       \(CLI.format(report.ratio, 3))")
            print("  constrained output: \(last.text)")
        }
    }
}
