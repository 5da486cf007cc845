import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `runanywhere bench …`: performance of the SDK against the raw engine.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks: the SDK against the raw engine, in one run.",
        subcommands: [
            LLM.self, STT.self, TTS.self, VAD.self, WakeWord.self, Diarize.self, Voice.self, Structured.self,
            ToolsListing.self, Embed.self, LoRA.self,
            RAG.self,
            ServeListing.self, RemoteListing.self, DownloadListing.self, Startup.self,
            FileServerListing.self,
        ]
    )

    /// SDK vs a plain C program on the same libllama, model, prompt, threads and token counts.
    struct LLM: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "llm",
            abstract: "Prompt and generation speed and time to first token, SDK vs raw llama.cpp."
        )

        static let defaultPrompt = """
            The history of computing is a story of ever smaller machines doing ever larger work. \
            Early computers filled rooms and drew enormous power, yet they could only perform a few \
            thousand operations each second. Today a phone in a pocket runs language models that \
            answer questions, translate speech and summarise documents without a network connection. \
            Explain in plain words how this change happened and what it means for privacy.
            """

        @OptionGroup var output: BenchOutputOptions
        @Option(help: "Model id.") var model = CLI.Defaults.llm
        @Option(help: "Prompt text (sent verbatim to both).") var prompt = defaultPrompt
        @Option(help: "Tokens generated per repetition.") var tokens = 64
        @Option(name: .customLong("context-length"), help: "Context size for both.") var contextLength = 2048
        @OptionGroup var baseline: BaselineOptions

        struct Sample: Codable {
            var promptTokens: Int
            var generatedTokens: Int
            var ttftMs: Double
            var promptTps: Double
            var generationTps: Double
        }

        struct Report: Encodable {
            var model: String
            var threads: Int
            var tokens: Int
            var reps: Int
            var promptTokens: Int
            var sdkGenerationTps: Double
            var rawGenerationTps: Double
            var generationRatio: Double
            var sdkPromptTps: Double
            var rawPromptTps: Double
            var promptRatio: Double
            var sdkTtftMs: Double
            var rawTtftMs: Double
            var ttftOverheadMs: Double
            var sdkSamples: [Sample]
            var rawSamples: [Sample]
        }

        func validate() throws {
            guard tokens >= 2 else { throw ValidationError("--tokens must be at least 2") }
            guard baseline.reps >= 1 else { throw ValidationError("--reps must be at least 1") }
            guard baseline.threads >= 1 else { throw ValidationError("--threads must be at least 1") }
        }

        func execute() async throws {
            try await CLI.start(output.global)
            let info = try RunAnywhere.model(model)
            guard let path = info.localPath else {
                throw SDKException(.modelFileNotFound, "Model '\(model)' has no local file")
            }
            // Interleaved, one raw repetition then one SDK repetition, so that drift in the
            // machine's speed (other tenants, frequency) falls on both sides alike.
            // Each side measures right after a warm-up of its own, as the raw process does,
            // so both meet the engine's OpenMP threads in the same state.
            let rawBinary = try rawBaseline()
            let promptFile = FileManager.default.temporaryDirectory.appendingPathComponent(
                "runanywhere-bench-\(UUID().uuidString).txt"
            )
            try Data(prompt.utf8).write(to: promptFile)
            defer { try? FileManager.default.removeItem(at: promptFile) }
            try await RunAnywhere.loadModel(model, contextLength: contextLength, threads: baseline.threads)
            var raw: [Sample] = []
            var sdk: [Sample] = []
            for _ in 0..<baseline.reps {
                raw += try runRaw(rawBinary, modelPath: path.path, promptFile: promptFile)
                _ = try await sdkSample()
                sdk.append(try await sdkSample())
            }
            try await RunAnywhere.unloadModel()
            guard !raw.isEmpty, !sdk.isEmpty else {
                throw SDKException(.internalError, "The benchmark produced no samples")
            }
            let report = Report(
                model: model,
                threads: baseline.threads,
                tokens: tokens,
                reps: baseline.reps,
                promptTokens: sdk[0].promptTokens,
                sdkGenerationTps: CLI.median(sdk.map(\.generationTps)),
                rawGenerationTps: CLI.median(raw.map(\.generationTps)),
                generationRatio: CLI.median(sdk.map(\.generationTps)) / CLI.median(raw.map(\.generationTps)),
                sdkPromptTps: CLI.median(sdk.map(\.promptTps)),
                rawPromptTps: CLI.median(raw.map(\.promptTps)),
                promptRatio: CLI.median(sdk.map(\.promptTps)) / CLI.median(raw.map(\.promptTps)),
                sdkTtftMs: CLI.median(sdk.map(\.ttftMs)),
                rawTtftMs: CLI.median(raw.map(\.ttftMs)),
                ttftOverheadMs: CLI.median(sdk.map(\.ttftMs)) - CLI.median(raw.map(\.ttftMs)),
                sdkSamples: sdk,
                rawSamples: raw
            )
            guard sdk[0].promptTokens == raw[0].promptTokens else {
                throw SDKException(
                    .internalError,
                    "SDK and raw saw different prompts (\(sdk[0].promptTokens) vs \(raw[0].promptTokens) tokens)"
                )
            }
            if output.json { return try CLI.printJSON(report) }
            print(
                "llama.cpp benchmark — \(model), \(report.promptTokens) prompt tokens, \(tokens) generated, \(baseline.threads) threads, median of \(baseline.reps)"
            )
            print("                  SDK        raw      ratio")
            print(
                "prompt tok/s  \(CLI.pad(report.sdkPromptTps))  \(CLI.pad(report.rawPromptTps))  \(CLI.pad(report.promptRatio, 3))"
            )
            print(
                "gen tok/s     \(CLI.pad(report.sdkGenerationTps))  \(CLI.pad(report.rawGenerationTps))  \(CLI.pad(report.generationRatio, 3))"
            )
            print(
                "TTFT ms       \(CLI.pad(report.sdkTtftMs))  \(CLI.pad(report.rawTtftMs))  overhead \(CLI.format(report.ttftOverheadMs, 2)) ms"
            )
        }

        private func sdkSample() async throws -> Sample {
            let options = LLMGenerationOptions(
                maxTokens: tokens,
                temperature: 0,
                repetitionPenalty: 1,
                threads: baseline.threads,
                applyChatTemplate: false,
                ignoreEndOfSequence: true,
                reusePromptCache: false
            )
            let r = try await RunAnywhere.generate(prompt, options: options)
            return Sample(
                promptTokens: r.promptTokens,
                generatedTokens: r.generatedTokens,
                ttftMs: r.timeToFirstTokenMs,
                promptTps: r.promptTokensPerSecond,
                generationTps: r.tokensPerSecond
            )
        }

        private func rawBaseline() throws -> URL {
            try CLI.siblingExecutable("raw-llama-bench", override: baseline.rawBinary)
        }

        /// One measured repetition of the raw baseline, after its own warm-up.
        private func runRaw(_ binary: URL, modelPath: String, promptFile: URL) throws -> [Sample] {
            let data = try CLI.runProcess(
                binary,
                [modelPath, promptFile.path, String(tokens), String(baseline.threads), "2", String(contextLength)]
            )
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
            // The first line is the warm-up.
            return try lines.dropFirst().map { try decoder.decode(Sample.self, from: Data($0.utf8)) }
        }
    }
}
