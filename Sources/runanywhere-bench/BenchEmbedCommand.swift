import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BenchCommand {
    /// The SDK's embeddings against a plain C program on the same libllama, model, texts,
    /// token budget and threads.
    struct Embed: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "embed",
            abstract: "Embedding throughput, SDK vs raw llama.cpp, interleaved in one run."
        )

        /// Sentences the benchmark's texts are made of: passage-sized texts of 1–6 sentences.
        static let sentences = [
            "The kitchen lights turn on automatically when someone enters after sunset.",
            "Water the ferns twice a week and keep them out of direct sunlight.",
            "The boiler pressure should read between one and one and a half bar.",
            "Recycling is collected every other Friday, general waste every Tuesday.",
            "The wireless network is called Lighthouse and its password is on the router.",
            "Early computers filled rooms and could perform only a few thousand operations a second.",
            "A phone in a pocket now runs language models that answer questions without a network.",
            "Retrieval finds the passages most relevant to a question before a model answers it.",
            "Embeddings map texts to vectors so that similar meanings lie close together.",
            "The spare key hangs on the hook beside the front door.",
            "Tyre pressure for the car is two point four bar at the front and the back.",
            "Heavy rain is expected tomorrow afternoon, with strong winds along the coast.",
        ]

        @OptionGroup var output: BenchOutputOptions
        @Option(help: "Embedding model id.") var model = CLI.Defaults.embedding
        @Option(help: "Number of texts per repetition.") var texts = 256
        @Option(name: .customLong("batch-tokens"), help: "Token budget of one engine call, for both.")
        var batchTokens = 512
        @OptionGroup var baseline: BaselineOptions

        struct Sample: Codable {
            var ms: Double
            var texts: Int
            var tokens: Int
        }

        struct Report: Encodable {
            var model: String
            var threads: Int
            var reps: Int
            var texts: Int
            var tokens: Int
            var batchTokens: Int
            var sdkMs: Double
            var rawMs: Double
            /// Raw time over SDK time: 1 means the SDK is as fast as the raw engine.
            var speedRatio: Double
            var sdkTextsPerSecond: Double
            var rawTextsPerSecond: Double
            var sdkTokensPerSecond: Double
            var sdkSamples: [Sample]
            var rawSamples: [Sample]
        }

        func validate() throws {
            guard texts >= 1 else { throw ValidationError("--texts must be at least 1") }
            guard baseline.reps >= 1 else { throw ValidationError("--reps must be at least 1") }
            guard baseline.threads >= 1 else { throw ValidationError("--threads must be at least 1") }
            guard batchTokens >= 64 else { throw ValidationError("--batch-tokens must be at least 64") }
        }

        /// Text i: 1–6 sentences, starting at a different sentence each time.
        static func corpus(_ count: Int) -> [String] {
            (0..<count).map { i in
                let length = 1 + (i * 7) % 6
                return (0..<length).map { sentences[(i * 5 + $0) % sentences.count] }.joined(separator: " ")
            }
        }

        func execute() async throws {
            try await CLI.start(output.global)
            let info = try RunAnywhere.model(model)
            guard let path = info.localPath else {
                throw SDKException(.modelFileNotFound, "Model '\(model)' has no local file")
            }
            let rawBinary = try CLI.siblingExecutable("raw-embed-bench", override: baseline.rawBinary)
            let corpus = Self.corpus(texts)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "runanywhere-bench-embed-\(UUID().uuidString).txt"
            )
            try Data(corpus.joined(separator: "\n").utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            try await RunAnywhere.loadEmbeddingModel(
                model,
                configuration: EmbeddingsLoadConfiguration(threads: baseline.threads, batchTokens: batchTokens)
            )
            var raw: [Sample] = []
            var sdk: [Sample] = []
            // Interleaved, each side right after a warm-up of its own (see `bench llm`).
            for _ in 0..<baseline.reps {
                let data = try CLI.runProcess(
                    rawBinary,
                    [path.path, file.path, String(baseline.threads), "2", String(batchTokens)]
                )
                let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
                raw += try lines.dropFirst().map { try JSONDecoder().decode(Sample.self, from: Data($0.utf8)) }
                _ = try await RunAnywhere.embeddings(for: corpus)
                let result = try await RunAnywhere.embeddings(for: corpus)
                sdk.append(Sample(ms: result.durationMs, texts: corpus.count, tokens: result.tokenCounts.reduce(0, +)))
            }
            try await RunAnywhere.unloadEmbeddingModel()
            guard let first = sdk.first, let firstRaw = raw.first else {
                throw SDKException(.internalError, "The benchmark produced no samples")
            }
            guard first.tokens == firstRaw.tokens else {
                throw SDKException(
                    .internalError,
                    "SDK and raw saw different texts (\(first.tokens) vs \(firstRaw.tokens) tokens)"
                )
            }
            let sdkMs = CLI.median(sdk.map(\.ms))
            let rawMs = CLI.median(raw.map(\.ms))
            let report = Report(
                model: model,
                threads: baseline.threads,
                reps: baseline.reps,
                texts: corpus.count,
                tokens: first.tokens,
                batchTokens: batchTokens,
                sdkMs: sdkMs,
                rawMs: rawMs,
                speedRatio: rawMs / sdkMs,
                sdkTextsPerSecond: Double(corpus.count) / (sdkMs / 1000),
                rawTextsPerSecond: Double(corpus.count) / (rawMs / 1000),
                sdkTokensPerSecond: Double(first.tokens) / (sdkMs / 1000),
                sdkSamples: sdk,
                rawSamples: raw
            )
            if output.json { return try CLI.printJSON(report) }
            print(
                "Embedding benchmark — \(model), \(corpus.count) texts (\(first.tokens) tokens), "
                    + "\(baseline.threads) threads, median of \(baseline.reps)"
            )
            print("                  SDK        raw      ratio")
            print("ms/run        \(CLI.pad(sdkMs))  \(CLI.pad(rawMs))  \(CLI.pad(report.speedRatio, 3))")
            print("texts/s       \(CLI.pad(report.sdkTextsPerSecond))  \(CLI.pad(report.rawTextsPerSecond))")
        }
    }
}
