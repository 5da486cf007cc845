import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine
import RunAnywhereRAG

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `runanywhere rag …`: RAG indexes under the SDK home.
struct RAGCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rag",
        abstract: "Create, fill, search and ask RAG indexes.",
        subcommands: [
            RAGCreateCommand.self, RAGIngestCommand.self, RAGSearchCommand.self, RAGAskCommand.self,
            RAGStatsCommand.self, RAGDeleteCommand.self, RAGListCommand.self, RAGRepairCommand.self,
        ]
    )
}

struct RAGCreateCommand: SDKCommand {
    static let configuration = CommandConfiguration(commandName: "create", abstract: "Create an empty index.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The index's name.") var name: String
    @Option(name: .customLong("embedding-model"), help: "Embedding model id (default: \(CLI.Defaults.embedding)).")
    var embeddingModel = CLI.Defaults.embedding
    @Option(name: .customLong("chunk-tokens"), help: "Most tokens per chunk.") var chunkTokens = 128
    @Option(help: "Tokens of whole sentences shared by consecutive chunks.") var overlap = 24

    func execute() async throws {
        try await CLI.start(global)
        let index = try await RunAnywhere.createRAGIndex(
            name,
            embeddingModel: embeddingModel,
            chunking: RAGChunkingOptions(chunkTokens: chunkTokens, overlapTokens: overlap)
        )
        print(
            "Created \(name) (\(index.embeddingModel), \(index.dimension) dimensions, chunks of \(chunkTokens) tokens)"
        )
    }
}

struct RAGIngestCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Add .txt/.md files, folders or .jsonl files ({\"id\",\"title\",\"text\"} per line) to an index."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The index's name.") var name: String
    @Argument(help: "Files and folders.") var paths: [String]
    @Flag(name: .long, help: "Print one JSON object.") var json = false

    struct Output: Encodable {
        var documents: Int
        var chunks: Int
        var tokens: Int
        var seconds: Double
        var chunksPerSecond: Double
        var embeddingSeconds: Double
        var storeSeconds: Double
    }

    func execute() async throws {
        try await CLI.start(global)
        let index = try await RunAnywhere.openRAGIndex(name)
        let showProgress = !json && isatty(STDERR_FILENO) != 0
        let start = ContinuousClock.now
        let results = try await index.ingest(files: paths.map { URL(fileURLWithPath: $0) }) { done, total in
            guard showProgress else { return }
            let width = 30
            let filled = total > 0 ? width * done / total : width
            let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
            let end = done == total ? "\n" : ""
            CLI.writeError("\r[\(bar)] \(done)/\(total) documents\(end)")
        }
        let seconds = Double(start.duration(to: .now).milliseconds) / 1000
        let chunks = results.reduce(0) { $0 + $1.chunks }
        let output = Output(
            documents: results.count,
            chunks: chunks,
            tokens: results.reduce(0) { $0 + $1.tokens },
            seconds: seconds,
            chunksPerSecond: seconds > 0 ? Double(chunks) / seconds : 0,
            embeddingSeconds: results.reduce(0) { $0 + $1.embeddingMs } / 1000,
            storeSeconds: results.reduce(0) { $0 + $1.storeMs } / 1000
        )
        if json { return try CLI.printJSON(output) }
        print(
            "Ingested \(output.documents) documents as \(chunks) chunks in \(CLI.format(seconds, 2)) s "
                + "(\(CLI.format(output.chunksPerSecond)) chunks/s; embedding \(CLI.format(output.embeddingSeconds, 2)) s, "
                + "chunking and store \(CLI.format(output.storeSeconds, 2)) s)"
        )
    }
}

struct RAGSearchCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find the chunks most relevant to a query, or to every query of a JSONL file."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The index's name.") var name: String
    @Option(help: "The query.") var query: String?
    @Option(help: "A JSONL file of {\"id\", \"text\"} queries; prints one JSON line per query.") var queries: String?
    @Option(name: .customLong("top-k"), help: "How many chunks.") var topK = 5
    @Option(help: "hybrid, bm25 or vector.") var mode: RAGSearchMode = .hybrid
    @Option(help: "Only documents with this metadata, as key=value (repeatable).") var filter: [String] = []
    @OptionGroup var reranking: RerankOptions
    @Flag(name: .long, help: "Print JSON.") var json = false

    struct Result: Encodable {
        var documentId: String
        var chunkId: Int64
        var score: Double
        var text: String
    }

    struct Output: Encodable {
        var queryId: String?
        var results: [Result]
    }

    private struct QueryLine: Decodable {
        var id: String
        var text: String
    }

    func execute() async throws {
        guard (query == nil) != (queries == nil) else { throw ValidationError("Give either --query or --queries") }
        var metadata: [String: String] = [:]
        for pair in filter {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { throw ValidationError("--filter takes key=value, not \(pair)") }
            metadata[String(parts[0])] = String(parts[1])
        }
        try await CLI.start(global)
        let index = try await RunAnywhere.openRAGIndex(name)
        let reranker = try await reranking.prepare(llm: nil)
        let options = RAGSearchOptions(topK: topK, mode: mode, filter: metadata, reranker: reranker)
        func results(_ text: String) async throws -> [Result] {
            try await index.search(text, options: options).map {
                Result(documentId: $0.documentId, chunkId: $0.chunkId, score: $0.score, text: $0.text)
            }
        }
        if let queries {
            for (number, line) in try CLI.readText(queries, what: "queries").split(separator: "\n").enumerated() {
                guard let parsed = try? JSONDecoder().decode(QueryLine.self, from: Data(line.utf8)) else {
                    throw SDKException(.invalidInput, "\(queries) line \(number + 1) is not {\"id\", \"text\"}")
                }
                try CLI.printJSON(Output(queryId: parsed.id, results: try await results(parsed.text)))
            }
            return
        }
        let found = try await results(query ?? "")
        if json { return try CLI.printJSON(Output(queryId: nil, results: found)) }
        for (rank, result) in found.enumerated() {
            print("\(rank + 1). \(result.documentId) #\(result.chunkId)  score \(CLI.format(result.score, 4))")
            print("   " + result.text.replacing("\n", with: " "))
        }
    }
}

extension RAGSearchMode: ExpressibleByArgument {}

/// `--rerank` for commands that search: which second stage reorders the first results.
struct RerankOptions: ParsableArguments {
    @Option(help: "Rerank the first results: `llm` (the language model judges each) or a reranking model id.")
    var rerank: String?
    @Option(name: .customLong("rerank-candidates"), help: "First results the reranker reads.")
    var rerankCandidates = 20

    /// Loads the model the reranker needs; nil without `--rerank`.
    func prepare(llm: String?) async throws -> RAGReranker? {
        guard let rerank else { return nil }
        guard rerank == "llm" else {
            try await RunAnywhere.loadRerankModel(rerank)
            return .crossEncoder(candidates: rerankCandidates)
        }
        guard let id = llm ?? CLI.model(nil, orDefault: CLI.Defaults.llm) else {
            throw SDKException(.modelNotFound, "--rerank llm needs an LLM and \(CLI.Defaults.llm) is not installed")
        }
        if await RunAnywhere.currentLLMModel?.id != id { try await RunAnywhere.loadModel(id) }
        return .languageModel(candidates: rerankCandidates)
    }
}

struct RAGAskCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "ask",
        abstract: "Answer a question from an index's documents, with citations."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The index's name.") var name: String
    @Option(help: "The question.") var question: String
    @Option(help: "LLM id (default: \(CLI.Defaults.llm)).") var model: String?
    @Option(name: .customLong("top-k"), help: "How many chunks the model sees.") var topK = 4
    @Option(help: "hybrid, bm25 or vector.") var mode: RAGSearchMode = .hybrid
    @Option(name: .customLong("max-tokens"), help: "Longest answer, in tokens.") var maxTokens = 256
    @OptionGroup var reranking: RerankOptions
    @Flag(name: .long, help: "Print one JSON object.") var json = false

    struct Citation: Encodable {
        var number: Int
        var documentId: String
        var chunkId: Int64
    }

    struct Output: Encodable {
        var answer: String
        var citations: [Citation]
        var sources: [RAGSearchCommand.Result]
        var retrievalMs: Double
        var generationMs: Double
    }

    func execute() async throws {
        try await CLI.start(global)
        guard let llm = CLI.model(model, orDefault: CLI.Defaults.llm) else {
            throw SDKException(.modelNotFound, "No LLM given and \(CLI.Defaults.llm) is not installed")
        }
        let index = try await RunAnywhere.openRAGIndex(name)
        let options = RAGQueryOptions(
            search: RAGSearchOptions(topK: topK, mode: mode, reranker: try await reranking.prepare(llm: llm)),
            model: llm,
            generation: LLMGenerationOptions(maxTokens: maxTokens, temperature: 0, repetitionPenalty: 1.1)
        )
        var answer: RAGAnswer?
        for try await event in try await index.queryStream(question, options: options) {
            switch event {
            case .sources: break
            case .token(let text): if !json { CLI.write(text) }
            case .completed(let done): answer = done
            }
        }
        guard let answer else { throw SDKException(.internalError, "The answer did not complete") }
        if json {
            return try CLI.printJSON(
                Output(
                    answer: answer.text,
                    citations: answer.citations.map {
                        Citation(number: $0.number, documentId: $0.documentId, chunkId: $0.chunkId)
                    },
                    sources: answer.sources.map {
                        RAGSearchCommand.Result(
                            documentId: $0.documentId,
                            chunkId: $0.chunkId,
                            score: $0.score,
                            text: $0.text
                        )
                    },
                    retrievalMs: answer.retrievalMs,
                    generationMs: answer.generation.totalMs
                )
            )
        }
        print("")
        for (number, source) in answer.sources.enumerated() {
            let cited = answer.citations.contains { $0.number == number + 1 } ? "*" : " "
            print("\(cited)[\(number + 1)] \(source.documentId)")
        }
    }
}

struct RAGStatsCommand: SDKCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "What an index holds.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The index's name.") var name: String
    @Flag(name: .long, help: "Print one JSON object.") var json = false

    func execute() async throws {
        try await CLI.start(global)
        let stats = try await RunAnywhere.openRAGIndex(name).stats()
        if json { return try CLI.printJSON(stats) }
        print("\(stats.name): \(stats.documents) documents, \(stats.chunks) chunks, \(stats.tokens) tokens")
        print(
            "  embedding model \(stats.embeddingModel) (\(stats.dimension) dimensions), vector search \(stats.vectorSearch)"
        )
        print("  chunks of \(stats.chunking.chunkTokens) tokens, overlap \(stats.chunking.overlapTokens)")
        print("  database \(CLI.bytes(stats.databaseBytes))")
    }
}

struct RAGDeleteCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete an index, or one document from it."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The index's name.") var name: String
    @Option(help: "Delete only this document.") var document: String?

    func execute() async throws {
        try await CLI.start(global)
        if let document {
            guard try await RunAnywhere.openRAGIndex(name).delete(documentId: document) else {
                throw SDKException(.invalidInput, "Index \(name) has no document '\(document)'")
            }
            print("Deleted document \(document) from \(name)")
        } else {
            try RunAnywhere.deleteRAGIndex(name)
            print("Deleted index \(name)")
        }
    }
}

struct RAGListCommand: SDKCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the indexes.")

    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print one JSON array.") var json = false

    func execute() async throws {
        try await CLI.start(global)
        let names = try RunAnywhere.ragIndexNames()
        if json { return try CLI.printJSON(names) }
        for name in names { print(name) }
    }
}

struct RAGRepairCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair",
        abstract: "Check an index; rebuild it empty (keeping the damaged file) when it cannot be read."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The index's name.") var name: String
    @Flag(name: .long, help: "Print one JSON object.") var json = false

    func execute() async throws {
        try await CLI.start(global)
        let report = try await RunAnywhere.repairRAGIndex(name)
        if json { return try CLI.printJSON(report) }
        if !report.rebuilt {
            print("\(name) is healthy; its keyword index was rebuilt")
        } else {
            print("\(name) was damaged (\(report.problems.joined(separator: "; ")))")
            print("It is now empty; the damaged file is \(report.damagedFile ?? "gone"). Ingest the documents again.")
        }
    }
}
