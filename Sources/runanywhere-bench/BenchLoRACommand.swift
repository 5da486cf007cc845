import ArgumentParser
@_spi(Backend) import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BenchCommand {
    /// Generation with 0, 1 and 2 LoRA adapters, and the cost of switching adapters between
    /// requests, on adapters written for the model's own shapes (no real adapter for the
    /// default model is available offline; speed depends only on rank and shapes).
    struct LoRA: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "lora",
            abstract: "Generation speed with 0, 1 and 2 LoRA adapters, and the time to switch adapters."
        )

        static let defaultPrompt = "Write a short story about a lighthouse keeper who finds a message in a bottle."

        /// Which of each block's matrices the adapters change.
        enum Targets: String, ExpressibleByArgument, CaseIterable {
            /// Query and value projections: the original LoRA paper's choice, and what PEFT's
            /// `LoraConfig` adapts in llama-family models when no target modules are given.
            case qv
            /// The four attention projections.
            case attention
            /// Every linear layer of the block (attention and MLP): the usual choice today, and the slowest.
            case all

            var kinds: [String] {
                switch self {
                case .qv: ["attn_q", "attn_v"]
                case .attention: ["attn_q", "attn_k", "attn_v", "attn_output"]
                case .all: ["attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"]
                }
            }
        }

        @OptionGroup var output: BenchOutputOptions
        @Option(help: "Model id.") var model = CLI.Defaults.llm
        @Option(help: "Prompt text.") var prompt = defaultPrompt
        @Option(help: "The adapters' rank.") var rank = 8
        @Option(help: "What the adapters change: qv (PEFT's default), attention or all.") var targets = Targets.qv
        @Option(help: "Tokens generated per repetition.") var tokens = 64
        @Option(help: "Measured rounds, raw and SDK taking turns (after a warm-up of each), of 3 repetitions each.")
        var reps = 5
        @Option(help: "Decoding threads.") var threads = ProcessInfo.processInfo.activeProcessorCount
        @Option(
            name: .customLong("context-length"),
            help:
                "Context size in tokens (default: the SDK's). A switch's cost grows with it: llama.cpp re-reserves its graphs."
        )
        var contextLength: Int?
        @Option(
            name: .customLong("raw-binary"),
            help: "The raw baseline of the switch (default: raw-lora-bench next to this executable)."
        )
        var rawBinary: String?

        /// Repetitions (speeds, and a pair of requests: same adapter, switched adapter) per round, on each side.
        static let pairsPerRound = 3

        struct Report: Encodable {
            var model: String
            var threads: Int
            /// The context the model was loaded with.
            var contextLength: Int
            var rank: Int
            var targets: String
            var tensorsPerAdapter: Int
            /// Tokens generated per speed sample.
            var tokens: Int
            /// The prompt's tokens (used as it is, no chat template).
            var promptTokens: Int
            /// Samples of each figure on each side.
            var samples: Int
            /// Through the SDK.
            var sdk: Figures
            /// The same on raw llama.cpp (`raw-lora-bench`), run interleaved with the SDK.
            var raw: Figures
            /// `RunAnywhere.lora.apply` changing the applied adapter.
            var applyCallMs: Double
        }

        /// What one side measured: medians over its repetitions.
        struct Figures: Encodable {
            var tokensPerSecondNoAdapter: Double
            var tokensPerSecondOneAdapter: Double
            var tokensPerSecondTwoAdapters: Double
            /// 1 − (with one adapter / without).
            var slowdownOneAdapter: Double
            var slowdownTwoAdapters: Double
            /// First token after the prompt, the adapter the same as the request before.
            var timeToFirstTokenSameAdapterMs: Double
            /// First token after the prompt, the adapter different from the request before.
            var timeToFirstTokenSwitchedAdapterMs: Double
            /// What switching adds to a request: the median, over pairs, of switched − same.
            var switchMs: Double

            init(_ pairs: [SwitchPair]) {
                let none = CLI.median(pairs.map(\.tokensPerSecondNone))
                tokensPerSecondNoAdapter = none
                tokensPerSecondOneAdapter = CLI.median(pairs.map(\.tokensPerSecondOne))
                tokensPerSecondTwoAdapters = CLI.median(pairs.map(\.tokensPerSecondTwo))
                slowdownOneAdapter = none > 0 ? 1 - tokensPerSecondOneAdapter / none : 0
                slowdownTwoAdapters = none > 0 ? 1 - tokensPerSecondTwoAdapters / none : 0
                timeToFirstTokenSameAdapterMs = CLI.median(pairs.map(\.sameMs))
                timeToFirstTokenSwitchedAdapterMs = CLI.median(pairs.map(\.switchedMs))
                switchMs = CLI.median(pairs.map { $0.switchedMs - $0.sameMs })
            }
        }

        func validate() throws {
            guard reps >= 1, threads >= 1, rank >= 1, tokens >= 2 else {
                throw ValidationError("--reps, --threads and --rank must be at least 1 and --tokens at least 2")
            }
        }

        func execute() async throws {
            try await CLI.start(output.global)
            let info = try RunAnywhere.model(model)
            let header = try GGUFFile(contentsOf: try info.localFile())
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ra-bench-lora-\(UUID().uuidString)"
            )
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let ids = [
                "bench-lora-a-\(UUID().uuidString.prefix(8).lowercased())",
                "bench-lora-b-\(UUID().uuidString.prefix(8).lowercased())",
            ]
            defer { try? FileManager.default.removeItem(at: folder) }
            var tensorCount = 0
            var files: [URL] = []
            for (index, id) in ids.enumerated() {
                let url = folder.appendingPathComponent("\(id).gguf")
                files.append(url)
                tensorCount = try Self.writeAdapter(
                    to: url,
                    model: header,
                    kinds: targets.kinds,
                    rank: rank,
                    seed: UInt64(index + 1)
                )
                try RunAnywhere.lora.register(LoraAdapterCatalogEntry(id: id, framework: .llamaCpp, localPath: url))
            }
            let raw = RawSwitch(
                binary: try CLI.siblingExecutable("raw-lora-bench", override: rawBinary),
                model: try info.localFile(),
                adapters: files,
                prompt: folder.appendingPathComponent("prompt.txt")
            )
            do {
                try Data(prompt.utf8).write(to: raw.prompt)
                let report = try await measure(ids: ids, tensorCount: tensorCount, raw: raw)
                for id in ids { try? await RunAnywhere.removeModel(id) }
                try await RunAnywhere.unloadModel()
                try print(report)
            } catch {
                for id in ids { try? await RunAnywhere.removeModel(id) }
                throw error
            }
        }

        /// What `raw-lora-bench` is run with.
        struct RawSwitch {
            var binary: URL
            var model: URL
            var adapters: [URL]
            var prompt: URL
        }

        /// One repetition, as `raw-lora-bench` prints it: generation speeds, and a pair of
        /// requests with the same adapter as the request before and with another one.
        struct SwitchPair: Decodable {
            var promptTokens: Int
            var sameMs: Double
            var switchedMs: Double
            var tokensPerSecondNone: Double
            var tokensPerSecondOne: Double
            var tokensPerSecondTwo: Double
        }

        private func measure(ids: [String], tensorCount: Int, raw: RawSwitch) async throws -> Report {
            try await RunAnywhere.loadModel(model, contextLength: contextLength, threads: threads)
            let loadedContext = await RunAnywhere.shared?.currentLLMContextLength ?? 0
            // What raw-lora-bench does: the prompt as it is, greedy, no penalty, every request
            // evaluating its whole prompt.
            let base = LLMGenerationOptions(
                maxTokens: tokens,
                temperature: 0,
                repetitionPenalty: 1,
                threads: threads,
                applyChatTemplate: false,
                ignoreEndOfSequence: true,
                reusePromptCache: false
            )
            func run(_ adapters: [String], maxTokens: Int? = nil) async throws -> LLMGenerationResult {
                var options = base
                options.maxTokens = maxTokens ?? tokens
                options.loraAdapters = adapters.map { LoRAAdapterSelection(id: $0) }
                return try await RunAnywhere.generate(prompt, options: options)
            }
            // A round on each side: generation with no adapter, both and one (the order raw
            // uses), then pairs of requests that follow a request under adapter A and use A
            // again or B. The sides take turns so that drift in the machine's speed falls on
            // both; a pair's difference cancels the drift within it.
            func sdkRound() async throws -> [SwitchPair] {
                var pairs: [SwitchPair] = []
                for _ in 0..<Self.pairsPerRound {
                    let none = try await run([]).tokensPerSecond
                    let two = try await run(ids).tokensPerSecond
                    let one = try await run([ids[0]]).tokensPerSecond
                    let same = try await run([ids[0]], maxTokens: 2)
                    _ = try await run([ids[0]])
                    let switched = try await run([ids[1]], maxTokens: 2)
                    pairs.append(
                        SwitchPair(
                            promptTokens: same.promptTokens,
                            sameMs: same.timeToFirstTokenMs,
                            switchedMs: switched.timeToFirstTokenMs,
                            tokensPerSecondNone: none,
                            tokensPerSecondOne: one,
                            tokensPerSecondTwo: two
                        )
                    )
                }
                return pairs
            }
            var sdk: [SwitchPair] = []
            var rawPairs: [SwitchPair] = []
            _ = try await sdkRound()
            for _ in 0..<reps {
                rawPairs += try runRaw(raw, contextLength: loadedContext)
                sdk += try await sdkRound()
            }
            guard let first = sdk.first, let rawFirst = rawPairs.first else {
                throw SDKException(.internalError, "The benchmark produced no samples")
            }
            guard first.promptTokens == rawFirst.promptTokens else {
                throw SDKException(
                    .internalError,
                    "SDK and raw saw different prompts (\(first.promptTokens) vs \(rawFirst.promptTokens) tokens)"
                )
            }
            var calls: [Double] = []
            for index in 0..<max(reps, 5) {
                let start = ContinuousClock.now
                try await RunAnywhere.lora.apply([LoRAAdapterSelection(id: ids[index % 2])])
                calls.append(start.duration(to: .now).milliseconds)
            }
            try await RunAnywhere.lora.clear()
            return Report(
                model: model,
                threads: threads,
                contextLength: loadedContext,
                rank: rank,
                targets: targets.rawValue,
                tensorsPerAdapter: tensorCount,
                tokens: tokens,
                promptTokens: first.promptTokens,
                samples: sdk.count,
                sdk: Figures(sdk),
                raw: Figures(rawPairs),
                applyCallMs: CLI.median(calls)
            )
        }

        /// One round of the raw baseline: its own process, a warm-up repetition, then measured ones.
        private func runRaw(_ raw: RawSwitch, contextLength: Int) throws -> [SwitchPair] {
            let data = try CLI.runProcess(
                raw.binary,
                [raw.model.path, raw.adapters[0].path, raw.adapters[1].path, raw.prompt.path]
                    + [threads, Self.pairsPerRound, contextLength, tokens].map(String.init)
            )
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
                try decoder.decode(SwitchPair.self, from: Data($0.utf8))
            }
        }

        private func print(_ report: Report) throws {
            if output.json { return try CLI.printJSON(report) }
            let (sdk, raw) = (report.sdk, report.raw)
            Swift.print(
                "LoRA — \(report.model) (context \(report.contextLength)), rank \(report.rank) on \(report.targets) (\(report.tensorsPerAdapter) tensors per adapter), \(report.threads) threads, \(report.promptTokens)-token prompt, median of \(report.samples)"
            )
            Swift.print("                   SDK                         raw llama.cpp")
            func speed(_ label: String, _ sdk: Double, _ sdkSlowdown: Double?, _ raw: Double, _ rawSlowdown: Double?) {
                func cell(_ value: Double, _ slowdown: Double?) -> String {
                    let suffix = slowdown.map { " (\(CLI.format($0 * 100))% slower)" } ?? ""
                    let text = "\(CLI.format(value)) tok/s\(suffix)"
                    return text.padded(to: 28)
                }
                Swift.print("  \(label)\(cell(sdk, sdkSlowdown))\(cell(raw, rawSlowdown))")
            }
            speed("no adapter:      ", sdk.tokensPerSecondNoAdapter, nil, raw.tokensPerSecondNoAdapter, nil)
            speed(
                "one adapter:     ",
                sdk.tokensPerSecondOneAdapter,
                sdk.slowdownOneAdapter,
                raw.tokensPerSecondOneAdapter,
                raw.slowdownOneAdapter
            )
            speed(
                "two adapters:    ",
                sdk.tokensPerSecondTwoAdapters,
                sdk.slowdownTwoAdapters,
                raw.tokensPerSecondTwoAdapters,
                raw.slowdownTwoAdapters
            )
            Swift.print(
                "  switch between requests: SDK +\(CLI.format(sdk.switchMs, 2)) ms to the first token (\(CLI.format(sdk.timeToFirstTokenSwitchedAdapterMs)) vs \(CLI.format(sdk.timeToFirstTokenSameAdapterMs)) ms), raw +\(CLI.format(raw.switchMs, 2)) ms (\(CLI.format(raw.timeToFirstTokenSwitchedAdapterMs)) vs \(CLI.format(raw.timeToFirstTokenSameAdapterMs)) ms)"
            )
            Swift.print("  apply call: \(CLI.format(report.applyCallMs, 3)) ms")
        }

        /// Writes a random rank-`rank` adapter for every block's `kinds` matrices of `model`;
        /// returns how many tensors it changes.
        static func writeAdapter(to url: URL, model: GGUFFile, kinds: [String], rank: Int, seed: UInt64) throws -> Int {
            var writer = GGUFWriter()
            writer.set("general.architecture", .string(model.architecture ?? ""))
            writer.set("general.type", .string("adapter"))
            writer.set("adapter.type", .string("lora"))
            var state = seed
            func noise(_ count: Int) -> [Float] {
                (0..<count).map { _ in
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return (Float(state >> 40) / Float(1 << 24) - 0.5) * 0.02
                }
            }
            var count = 0
            for tensor in model.tensors where tensor.dimensions.count == 2 {
                guard kinds.contains(where: { tensor.name.hasSuffix(".\($0).weight") && tensor.name.hasPrefix("blk.") })
                else { continue }
                let (input, output) = (tensor.dimensions[0], tensor.dimensions[1])
                try writer.addTensor("\(tensor.name).lora_a", dimensions: [input, rank], values: noise(input * rank))
                try writer.addTensor("\(tensor.name).lora_b", dimensions: [rank, output], values: noise(rank * output))
                count += 1
            }
            guard count > 0 else {
                throw SDKException(
                    .invalidInput,
                    "'\(model.architecture ?? "?")' has no \(kinds.joined(separator: "/")) matrices to adapt"
                )
            }
            try writer.write(to: url)
            return count
        }
    }
}
