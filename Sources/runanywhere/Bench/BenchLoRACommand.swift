import ArgumentParser
import Foundation
@_spi(Backend) import RunAnywhere
import RunAnywhereLlamaCPP

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
            /// Query and value projections: the original LoRA paper's choice.
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
        @Option(help: "What the adapters change: qv, attention or all.") var targets = Targets.all
        @Option(help: "Tokens generated per repetition.") var tokens = 64
        @Option(help: "Measured repetitions of each case, interleaved (after a warm-up of each).") var reps = 5
        @Option(help: "Decoding threads.") var threads = ProcessInfo.processInfo.activeProcessorCount
        @Option(
            name: .customLong("context-length"),
            help:
                "Context size in tokens (default: the SDK's). A switch's cost grows with it: llama.cpp re-reserves its graphs."
        )
        var contextLength: Int?

        struct Report: Encodable {
            var model: String
            var threads: Int
            /// The context the model was loaded with.
            var contextLength: Int
            var rank: Int
            var targets: String
            var tensorsPerAdapter: Int
            var tokens: Int
            var reps: Int
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
            /// What switching adds to a request: the difference of the two.
            var switchMs: Double
            /// `RunAnywhere.lora.apply` changing the applied adapter.
            var applyCallMs: Double
        }

        func validate() throws {
            guard reps >= 1, threads >= 1, rank >= 1, tokens >= 2 else {
                throw ValidationError("--reps, --threads and --rank must be at least 1 and --tokens at least 2")
            }
        }

        func execute() async throws {
            try CLI.start(output.global)
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
            for (index, id) in ids.enumerated() {
                let url = folder.appendingPathComponent("\(id).gguf")
                tensorCount = try Self.writeAdapter(
                    to: url,
                    model: header,
                    kinds: targets.kinds,
                    rank: rank,
                    seed: UInt64(index + 1)
                )
                try RunAnywhere.lora.register(LoraAdapterCatalogEntry(id: id, framework: .llamaCpp, localPath: url))
            }
            do {
                let report = try await measure(ids: ids, tensorCount: tensorCount)
                for id in ids { try? await RunAnywhere.removeModel(id) }
                try await RunAnywhere.unloadModel()
                try print(report)
            } catch {
                for id in ids { try? await RunAnywhere.removeModel(id) }
                throw error
            }
        }

        private func measure(ids: [String], tensorCount: Int) async throws -> Report {
            try await RunAnywhere.loadModel(model, contextLength: contextLength, threads: threads)
            let loadedContext = await RunAnywhere.shared?.currentLLMContextLength ?? 0
            let base = LLMGenerationOptions(
                maxTokens: tokens,
                temperature: 0,
                repetitionPenalty: 1.1,
                threads: threads,
                ignoreEndOfSequence: true,
                reusePromptCache: false
            )
            let cases: [[LoRAAdapterSelection]] = [
                [], [LoRAAdapterSelection(id: ids[0])], ids.map { LoRAAdapterSelection(id: $0) },
            ]
            func run(_ adapters: [LoRAAdapterSelection]) async throws -> LLMGenerationResult {
                var options = base
                options.loraAdapters = adapters
                return try await RunAnywhere.generate(prompt, options: options)
            }
            for adapters in cases { _ = try await run(adapters) }
            var speeds: [[Double]] = Array(repeating: [], count: cases.count)
            // Interleaved, so drift in the machine's speed falls on every case alike.
            for _ in 0..<reps {
                for (index, adapters) in cases.enumerated() {
                    speeds[index].append(try await run(adapters).tokensPerSecond)
                }
            }
            // Switching: the same full prompt each time (no cache reuse), after a request with
            // the same adapter or with the other one.
            var same: [Double] = []
            var switched: [Double] = []
            let a = [LoRAAdapterSelection(id: ids[0])]
            let b = [LoRAAdapterSelection(id: ids[1])]
            for _ in 0..<reps {
                _ = try await run(a)
                same.append(try await run(a).timeToFirstTokenMs)
                switched.append(try await run(b).timeToFirstTokenMs)
            }
            var calls: [Double] = []
            for index in 0..<max(reps, 5) {
                let start = ContinuousClock.now
                try await RunAnywhere.lora.apply([LoRAAdapterSelection(id: ids[index % 2])])
                calls.append(start.duration(to: .now).milliseconds)
            }
            try await RunAnywhere.lora.clear()
            let none = CLI.median(speeds[0])
            let one = CLI.median(speeds[1])
            let two = CLI.median(speeds[2])
            let sameMs = CLI.median(same)
            let switchedMs = CLI.median(switched)
            return Report(
                model: model,
                threads: threads,
                contextLength: loadedContext,
                rank: rank,
                targets: targets.rawValue,
                tensorsPerAdapter: tensorCount,
                tokens: tokens,
                reps: reps,
                tokensPerSecondNoAdapter: none,
                tokensPerSecondOneAdapter: one,
                tokensPerSecondTwoAdapters: two,
                slowdownOneAdapter: none > 0 ? 1 - one / none : 0,
                slowdownTwoAdapters: none > 0 ? 1 - two / none : 0,
                timeToFirstTokenSameAdapterMs: sameMs,
                timeToFirstTokenSwitchedAdapterMs: switchedMs,
                switchMs: switchedMs - sameMs,
                applyCallMs: CLI.median(calls)
            )
        }

        private func print(_ report: Report) throws {
            if output.json { return try CLI.printJSON(report) }
            Swift.print(
                "LoRA — \(report.model) (context \(report.contextLength)), rank \(report.rank) on \(report.targets) (\(report.tensorsPerAdapter) tensors per adapter), \(report.threads) threads, median of \(report.reps)"
            )
            Swift.print("  no adapter:   \(CLI.format(report.tokensPerSecondNoAdapter)) tok/s")
            Swift.print(
                "  one adapter:  \(CLI.format(report.tokensPerSecondOneAdapter)) tok/s (\(CLI.format(report.slowdownOneAdapter * 100))% slower)"
            )
            Swift.print(
                "  two adapters: \(CLI.format(report.tokensPerSecondTwoAdapters)) tok/s (\(CLI.format(report.slowdownTwoAdapters * 100))% slower)"
            )
            Swift.print(
                "  switching adapters between requests: +\(CLI.format(report.switchMs, 2)) ms to the first token (\(CLI.format(report.timeToFirstTokenSwitchedAdapterMs)) vs \(CLI.format(report.timeToFirstTokenSameAdapterMs)) ms); apply call \(CLI.format(report.applyCallMs, 3)) ms"
            )
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
