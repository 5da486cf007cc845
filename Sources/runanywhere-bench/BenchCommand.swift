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
            LLM.self, STT.self, TTS.self, VAD.self, WakeWord.self, Diarize.self, Voice.self, BargeIn.self,
            Structured.self,
            Tools.self, Embed.self, LoRA.self,
            RAG.self,
            Serve.self, Remote.self, Download.self, Startup.self,
            FileServer.self,
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
            /// SDK against raw, repetition by repetition: decode speed after the first token.
            var generationTps: PairedRuns
            /// Prompt tokens over the time to the first token, on both sides.
            var promptTps: PairedRuns
            /// From the request (before the cache is cleared, the prompt written and tokenized,
            /// and, in the SDK, the API's checks) to the first token's text, on both sides.
            var ttftMs: PairedRuns
            /// From `cancelGeneration()`, called at the 5th token of a long generation, to the
            /// stream's end, once per repetition (the SDK only: the raw harness has no stream).
            var cancelToEndMs: Spread?
            /// The slowest of them within ``cancelTargetMs``; missing unless every repetition gave one.
            var cancelTarget: BenchTarget
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
            // Each repetition is the same on both sides: load the model, one warm-up generation,
            // one measured (the raw harness in a process of its own, the SDK in this one). The
            // sides alternate which goes first, so that drift in the machine's speed (other
            // tenants, frequency) falls on both alike; neither reuses a cached prompt.
            let rawBinary = try rawBaseline()
            let promptFile = FileManager.default.temporaryDirectory.appendingPathComponent(
                "runanywhere-bench-\(UUID().uuidString).txt"
            )
            try Data(prompt.utf8).write(to: promptFile)
            defer { try? FileManager.default.removeItem(at: promptFile) }
            var raw: [Sample] = []
            var sdk: [Sample] = []
            var cancels: [Double] = []
            for rep in 0..<baseline.reps {
                if rep % 2 == 1 { raw += try runRaw(rawBinary, modelPath: path.path, promptFile: promptFile) }
                try await RunAnywhere.loadModel(model, contextLength: contextLength, threads: baseline.threads)
                _ = try await sdkSample()
                sdk.append(try await sdkSample())
                if let cancel = try await cancelSample() { cancels.append(cancel) }
                try await RunAnywhere.unloadModel()
                if rep % 2 == 0 { raw += try runRaw(rawBinary, modelPath: path.path, promptFile: promptFile) }
            }
            guard let first = sdk.first, let rawFirst = raw.first,
                let generation = PairedRuns(sdk: sdk.map(\.generationTps), raw: raw.map(\.generationTps)),
                let promptSpeed = PairedRuns(sdk: sdk.map(\.promptTps), raw: raw.map(\.promptTps)),
                let ttft = PairedRuns(sdk: sdk.map(\.ttftMs), raw: raw.map(\.ttftMs))
            else {
                throw SDKException(.internalError, "The benchmark produced no samples on one side")
            }
            guard first.promptTokens == rawFirst.promptTokens else {
                throw SDKException(
                    .internalError,
                    "SDK and raw saw different prompts (\(first.promptTokens) vs \(rawFirst.promptTokens) tokens)"
                )
            }
            let report = Report(
                model: model,
                threads: baseline.threads,
                tokens: tokens,
                reps: baseline.reps,
                promptTokens: first.promptTokens,
                generationTps: generation,
                promptTps: promptSpeed,
                ttftMs: ttft,
                cancelToEndMs: Spread(cancels),
                cancelTarget: BenchTarget(
                    "cancel to stream end, slowest ms",
                    cancels.count == baseline.reps ? cancels.max() : nil,
                    limit: Self.cancelTargetMs
                ),
                sdkSamples: sdk,
                rawSamples: raw
            )
            if output.json { return try CLI.printJSON(report) }
            print(
                "llama.cpp benchmark — \(model), \(report.promptTokens) prompt tokens, \(tokens) generated, "
                    + "\(baseline.threads) threads, median (range) of \(baseline.reps) interleaved repetitions"
            )
            for (name, unit, pair) in [
                ("prompt tok/s", "tok/s", promptSpeed), ("gen tok/s", "tok/s", generation), ("TTFT ms", "ms", ttft),
            ] {
                print("\(name.padded(to: 13)) SDK \(pair.sdk.formatted())  raw \(pair.raw.formatted())")
                print("              SDK: \(pair.summary(unit: unit))")
            }
            print("cancel → stream end: \(report.cancelToEndMs.map { "\($0.formatted()) ms" } ?? "missing")")
            print(report.cancelTarget.line)
        }

        /// How soon a generation must end once cancelled.
        static let cancelTargetMs = 500.0

        /// Starts a long generation, cancels it at its 5th token, and returns the milliseconds
        /// from the cancel to the stream's end; nil when the generation ended before the cancel.
        private func cancelSample() async throws -> Double? {
            let options = LLMGenerationOptions(
                maxTokens: 400,
                temperature: 0,
                repetitionPenalty: 1,
                threads: baseline.threads,
                applyChatTemplate: false,
                ignoreEndOfSequence: true,
                reusePromptCache: false
            )
            var seen = 0
            var cancelledAt: ContinuousClock.Instant?
            for try await event in try await RunAnywhere.generateStream(prompt, options: options) {
                guard case .token = event else { continue }
                seen += 1
                if seen == 5, cancelledAt == nil {
                    cancelledAt = .now
                    await RunAnywhere.cancelGeneration()
                }
            }
            return cancelledAt.map { $0.duration(to: .now).milliseconds }
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
