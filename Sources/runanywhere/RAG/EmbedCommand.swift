import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `runanywhere embed --text TEXT`: a text's embedding vector.
struct EmbedCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "embed",
        abstract: "Print the embedding vector of one or more texts."
    )

    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: "A text to embed (repeatable).") var text: [String] = []
    @Option(help: "Embedding model id (default: \(CLI.Defaults.embedding)).") var model: String?
    @Flag(help: "Keep the first window of a long text instead of averaging all windows.") var truncate = false
    @Flag(name: .customLong("no-normalize"), help: "Leave the vectors unnormalized.") var noNormalize = false
    @Flag(name: .long, help: "Print one JSON object.") var json = false

    struct Output: Encodable {
        var model: String
        var dimension: Int
        var embeddings: [[Float]]
        var tokens: [Int]
        var durationMs: Double
        var tokensPerSecond: Double
        var executedOn: String
    }

    func execute() async throws {
        guard !text.isEmpty else { throw ValidationError("Give at least one --text") }
        try await CLI.start(global)
        guard let id = CLI.model(model, orDefault: CLI.Defaults.embedding) else {
            throw SDKException(
                .modelNotFound,
                "No embedding model given and \(CLI.Defaults.embedding) is not installed",
                recovery: "Run `make models` or pass --model"
            )
        }
        try await RunAnywhere.loadEmbeddingModel(id)
        let result = try await RunAnywhere.embeddings(
            for: text,
            options: EmbeddingOptions(normalize: !noNormalize, overflow: truncate ? .truncate : .split)
        )
        if json {
            return try CLI.printJSON(
                Output(
                    model: result.modelId,
                    dimension: result.dimension,
                    embeddings: result.vectors,
                    tokens: result.tokenCounts,
                    durationMs: result.durationMs,
                    tokensPerSecond: result.tokensPerSecond,
                    executedOn: result.executedOn.rawValue
                )
            )
        }
        for (text, vector) in zip(text, result.vectors) {
            let head = vector.prefix(8).map { CLI.format(Double($0), 4) }.joined(separator: ", ")
            print("\(text): [\(head), …] (\(vector.count) dimensions)")
        }
        if text.count > 1 {
            for i in 0..<text.count {
                for j in (i + 1)..<text.count {
                    let cosine = RunAnywhere.cosineSimilarity(result.vectors[i], result.vectors[j])
                    print("cosine(\(i + 1), \(j + 1)) = \(CLI.format(Double(cosine), 4))")
                }
            }
        }
    }
}
