import ArgumentParser
import Foundation
import RunAnywhere

/// Sampling options shared by `generate` and `chat`.
struct SamplingOptions: ParsableArguments {
    @Option(name: .customLong("max-tokens"), help: "Most tokens to generate.") var maxTokens = 256
    @Option(help: "Sampling temperature; 0 is greedy.") var temperature: Float = 0.7
    @Option(name: .customLong("top-p")) var topP: Float = 0.95
    @Option(name: .customLong("top-k")) var topK = 40
    @Option(name: .customLong("repeat-penalty")) var repetitionPenalty: Float = 1.1
    @Option(help: "Random seed.") var seed: UInt32?
    @Option(name: .customLong("stop"), help: "A stop sequence (repeatable).") var stop: [String] = []
    @Option(help: "System prompt.") var system: String?
    @Option(help: "Decoding threads.") var threads: Int?

    var options: LLMGenerationOptions {
        LLMGenerationOptions(
            maxTokens: maxTokens,
            temperature: temperature,
            topP: topP,
            topK: topK,
            repetitionPenalty: repetitionPenalty,
            seed: seed,
            stopSequences: stop,
            systemPrompt: system,
            threads: threads
        )
    }
}

/// One generation.
struct GenerateCommand: SDKCommand {
    static let configuration = CommandConfiguration(commandName: "generate", abstract: "Generate text from a prompt.")

    @OptionGroup var global: GlobalOptions
    @Option(help: "Model id.") var model: String
    @Option(help: "The prompt.") var prompt: String
    @OptionGroup var sampling: SamplingOptions
    @Option(name: .customLong("context-length"), help: "Context size in tokens.") var contextLength: Int?
    @Flag(name: .customLong("raw"), help: "Send the prompt verbatim, without the chat template.") var raw = false
    @Flag(name: .long, help: "Print one JSON object with the text and metrics.") var json = false

    func execute() async throws {
        try CLI.start(global)
        try await RunAnywhere.loadModel(model, contextLength: contextLength)
        var options = sampling.options
        options.applyChatTemplate = !raw
        if json {
            return try CLI.printJSON(await RunAnywhere.generate(prompt, options: options))
        }
        for try await event in try await RunAnywhere.generateStream(prompt, options: options) {
            switch event {
            case .token(let text, let isThinking):
                if !isThinking { CLI.write(text) }
            case .completed(let r):
                CLI.write("\n")
                CLI.printError(
                    "[\(r.generatedTokens) tokens, \(CLI.format(r.tokensPerSecond)) tok/s, "
                        + "first token \(CLI.format(r.timeToFirstTokenMs)) ms, \(r.finishReason.rawValue)]"
                )
            }
        }
    }
}
