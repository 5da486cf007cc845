import ArgumentParser
import AsyncHTTPClient
// JSONSerialization, Process and FileHandle: full Foundation's, like the HTTP stack this goes with.
import Foundation
import Logging
import NIOCore
import RunAnywhere
import RunAnywhereCommandLine
import RunAnywhereServer

extension BenchCommand {
    /// The OpenAI-compatible server under concurrent streaming clients, and one client against
    /// in-process generation, in one process and one run.
    struct Serve: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: CompanionCommand.benchServe.abstract,
            discussion: """
                Starts the server in this process on a free port of 127.0.0.1 with the model loaded \
                with --slots slots. Each round runs every client count once, in order, and one \
                streamed request against an in-process `generate` of the same length; --runs rounds \
                are interleaved and the medians reported. Every request generates exactly \
                --max-tokens tokens (ignore_eos). Clients are AsyncHTTPClient tasks reading the SSE \
                stream; TTFT is measured from sending the request to the first content delta.
                """
        )

        @OptionGroup var output: BenchOutputOptions
        @Option(help: "Language model id.") var model = CLI.Defaults.llm
        @Option(help: "Slots the model is loaded with.") var slots = 8
        @Option(name: .customLong("context-length"), help: "Context per slot in tokens.") var contextLength = 512
        @Option(name: .customLong("max-tokens"), help: "Tokens every request generates.") var maxTokens = 128
        @Option(help: "Rounds, interleaved; medians are reported.") var runs = 3
        @Option(help: "Requests each client sends one after another, per round.") var requests = 2
        @Option(
            name: .customLong("clients"),
            parsing: .upToNextOption,
            help: "Concurrent client counts."
        )
        var clientCounts: [Int] = [1, 2, 4, 8]
        @Option(help: "Decoding threads, for the server and the raw baseline.")
        var threads = ProcessInfo.processInfo.activeProcessorCount
        @Option(
            name: .customLong("raw-binary"),
            help: "The raw baseline (default: raw-llama-bench next to this executable)."
        )
        var rawBinary: String?

        struct Level: Encodable {
            var clients: Int
            /// Generated tokens of every request over the wall time of the whole level.
            var aggregateTokensPerSecond: Double
            var ttftP50Ms: Double
            var ttftP95Ms: Double
            /// One request's decode speed after its first token, median over requests.
            var perRequestTokensPerSecond: Double
            var requests: Int
            /// The same clients calling `chat` in process, without HTTP.
            var engineTokensPerSecond: Double = 0
            /// TTFT p95 of those in-process calls (from the call to the first token).
            var engineTTFTP95Ms: Double = 0
            /// Plain C on the same libllama decoding this many sequences together, one token
            /// of each per `llama_decode` (raw-llama-bench with N_SEQ): the engine's ceiling.
            var rawTokensPerSecond: Double = 0
        }

        struct Report: Encodable {
            var model: String
            var slots: Int
            var contextLength: Int
            var maxTokens: Int
            var runs: Int
            var requestsPerClient: Int
            var threads: Int
            /// Medians over the runs.
            var levels: [Level]
            /// aggregate(4 clients) / aggregate(1 client); the target is ≥ 1.8.
            var aggregateRatio4To1: Double?
            /// The same ratio for the raw engine: what batching can give on this machine.
            var rawRatio4To1: Double?
            /// TTFT p95 with 4 clients over TTFT p95 with 1; the target is ≤ 2.
            var ttftP95Ratio4To1: Double?
            /// One streamed request's decode tok/s through the server over in-process
            /// `generate`'s, same model, prompt and length; the target is ≥ 0.95.
            var serverOverInProcess: Double
            var serverTokensPerSecond: Double
            var inProcessTokensPerSecond: Double
            /// Every run's levels, for the spread.
            var samples: [[Level]]
        }

        func validate() throws {
            guard slots >= 1, runs >= 1, requests >= 1, maxTokens >= 2 else {
                throw ValidationError("--slots, --runs and --requests must be at least 1, --max-tokens at least 2")
            }
            guard !clientCounts.isEmpty, clientCounts.allSatisfy({ $0 >= 1 }) else {
                throw ValidationError("--clients takes counts of at least 1")
            }
        }

        /// Distinct prompts, so that clients do not share a cached prefix beyond the template's.
        static let topics = [
            "the sea", "a lighthouse", "the desert", "a train journey", "the moon", "an old library",
            "a rainy city", "mountains in winter", "a small garden", "the first computers",
        ]

        func execute() async throws {
            try await CLI.start(output.global)
            guard let sdk = RunAnywhere.shared else { throw SDKException(.notInitialized, "The SDK did not start") }
            guard let modelPath = try RunAnywhere.model(model).localPath else {
                throw SDKException(.modelFileNotFound, "Model '\(model)' has no local file")
            }
            let raw = try CLI.siblingExecutable("raw-llama-bench", override: rawBinary)
            let promptFile = FileManager.default.temporaryDirectory.appendingPathComponent(
                "runanywhere-bench-serve-\(UUID().uuidString).txt"
            )
            try Data(Self.prompt(Self.topics[0]).utf8).write(to: promptFile)
            defer { try? FileManager.default.removeItem(at: promptFile) }
            var logger = Logger(label: "bench.serve")
            logger.logLevel = .critical
            let server = try await OpenAIServer.start(
                sdk: sdk,
                configuration: OpenAIServerConfiguration(
                    port: 0,
                    models: [model],
                    preload: true,
                    slots: slots,
                    contextLength: contextLength,
                    threads: threads,
                    queueSize: 64
                ),
                logger: logger
            )
            let url = server.baseURL.absoluteString + "v1/chat/completions"
            var samples: [[Level]] = []
            var serverRates: [Double] = []
            var inProcessRates: [Double] = []
            do {
                // Warm-up: every slot once.
                _ = try await level(clients: min(slots, 8), url: url)
                for _ in 0..<runs {
                    var round: [Level] = []
                    for count in clientCounts {
                        var measured = try await level(clients: count, url: url)
                        let engine = try await engineLevel(sdk: sdk, clients: count)
                        measured.engineTokensPerSecond = engine.rate
                        measured.engineTTFTP95Ms = engine.ttftP95Ms
                        measured.rawTokensPerSecond = try rawLevel(
                            raw,
                            modelPath: modelPath.path,
                            promptFile: promptFile,
                            sequences: count
                        )
                        round.append(measured)
                    }
                    samples.append(round)
                    // One client, the server then in-process, back to back.
                    serverRates.append(try await stream(url: url, topic: Self.topics[0]).tokensPerSecond)
                    inProcessRates.append(try await inProcess(sdk: sdk, topic: Self.topics[0]))
                }
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()

            let levels = clientCounts.indices.map { index in
                let runs = samples.map { $0[index] }
                return Level(
                    clients: runs[0].clients,
                    aggregateTokensPerSecond: CLI.median(runs.map(\.aggregateTokensPerSecond)),
                    ttftP50Ms: CLI.median(runs.map(\.ttftP50Ms)),
                    ttftP95Ms: CLI.median(runs.map(\.ttftP95Ms)),
                    perRequestTokensPerSecond: CLI.median(runs.map(\.perRequestTokensPerSecond)),
                    requests: runs[0].requests,
                    engineTokensPerSecond: CLI.median(runs.map(\.engineTokensPerSecond)),
                    engineTTFTP95Ms: CLI.median(runs.map(\.engineTTFTP95Ms)),
                    rawTokensPerSecond: CLI.median(runs.map(\.rawTokensPerSecond))
                )
            }
            let one = levels.first { $0.clients == 1 }
            let four = levels.first { $0.clients == 4 }
            let serverRate = CLI.median(serverRates)
            let inProcessRate = CLI.median(inProcessRates)
            let report = Report(
                model: model,
                slots: slots,
                contextLength: contextLength,
                maxTokens: maxTokens,
                runs: runs,
                requestsPerClient: requests,
                threads: threads,
                levels: levels,
                aggregateRatio4To1: one.flatMap { one in
                    four.map { $0.aggregateTokensPerSecond / one.aggregateTokensPerSecond }
                },
                rawRatio4To1: one.flatMap { one in four.map { $0.rawTokensPerSecond / one.rawTokensPerSecond } },
                ttftP95Ratio4To1: one.flatMap { one in four.map { $0.ttftP95Ms / one.ttftP95Ms } },
                serverOverInProcess: serverRate / inProcessRate,
                serverTokensPerSecond: serverRate,
                inProcessTokensPerSecond: inProcessRate,
                samples: samples
            )
            if output.json { return try CLI.printJSON(report) }
            print(
                "Server benchmark — \(model), \(slots) slots, \(maxTokens) tokens per request, "
                    + "\(requests) request(s) per client, median of \(runs)"
            )
            print("clients   server tok/s   in-process tok/s   raw engine tok/s   TTFT p50 ms   TTFT p95 ms")
            for level in levels {
                print(
                    "\(CLI.pad(Double(level.clients), 0))     \(CLI.pad(level.aggregateTokensPerSecond))"
                        + "       \(CLI.pad(level.engineTokensPerSecond))           \(CLI.pad(level.rawTokensPerSecond))"
                        + "          \(CLI.pad(level.ttftP50Ms))      \(CLI.pad(level.ttftP95Ms))"
                )
            }
            if let ratio = report.aggregateRatio4To1, let raw = report.rawRatio4To1 {
                print("aggregate(4) / aggregate(1): server \(CLI.format(ratio, 2)), raw engine \(CLI.format(raw, 2))")
            }
            if let ratio = report.ttftP95Ratio4To1 { print("TTFT p95(4) / p95(1): \(CLI.format(ratio, 2))") }
            print(
                "one client, server vs in-process: \(CLI.format(serverRate)) vs \(CLI.format(inProcessRate)) tok/s "
                    + "(ratio \(CLI.format(report.serverOverInProcess, 3)))"
            )
        }

        /// The raw engine's aggregate decode tok/s with `sequences` sequences, after a warm-up.
        private func rawLevel(_ binary: URL, modelPath: String, promptFile: URL, sequences: Int) throws -> Double {
            let data = try CLI.runProcess(
                binary,
                [
                    modelPath, promptFile.path, String(maxTokens), String(threads), "2", String(contextLength),
                    String(sequences),
                ]
            )
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
            guard let last = lines.last,
                let object = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any],
                let rate = object["generation_tps"] as? Double
            else { throw SDKException(.internalError, "raw-llama-bench printed no result") }
            return rate
        }

        /// The same level without HTTP: `clients` tasks calling `chat` in this process.
        private func engineLevel(sdk: RunAnywhereSDK, clients: Int) async throws -> (rate: Double, ttftP95Ms: Double) {
            let start = ContinuousClock.now
            let results = try await withThrowingTaskGroup(of: [LLMGenerationResult].self) { group in
                for client in 0..<clients {
                    group.addTask {
                        var results: [LLMGenerationResult] = []
                        for request in 0..<requests {
                            let topic = Self.topics[(client + request * clients) % Self.topics.count]
                            results.append(try await chatInProcess(sdk: sdk, topic: topic))
                        }
                        return results
                    }
                }
                return try await group.reduce(into: [LLMGenerationResult]()) { $0 += $1 }
            }
            let tokens = results.reduce(0) { $0 + $1.generatedTokens }
            return (
                Double(tokens) / start.duration(to: .now).seconds,
                CLI.percentile(results.map(\.timeToFirstTokenMs), 0.95)
            )
        }

        /// `clients` tasks, each sending `requests` streamed requests one after another.
        private func level(clients: Int, url: String) async throws -> Level {
            let start = ContinuousClock.now
            let results = try await withThrowingTaskGroup(of: [ChatStreamProbe.Result].self) { group in
                for client in 0..<clients {
                    group.addTask {
                        var results: [ChatStreamProbe.Result] = []
                        for request in 0..<requests {
                            let topic = Self.topics[(client + request * clients) % Self.topics.count]
                            results.append(try await stream(url: url, topic: topic))
                        }
                        return results
                    }
                }
                return try await group.reduce(into: [ChatStreamProbe.Result]()) { $0 += $1 }
            }
            let seconds = start.duration(to: .now).seconds
            let tokens = results.reduce(0) { $0 + $1.tokens }
            return Level(
                clients: clients,
                aggregateTokensPerSecond: Double(tokens) / seconds,
                ttftP50Ms: CLI.percentile(results.map(\.ttftMs), 0.5),
                ttftP95Ms: CLI.percentile(results.map(\.ttftMs), 0.95),
                perRequestTokensPerSecond: CLI.median(results.map(\.tokensPerSecond)),
                requests: results.count
            )
        }

        private func body(topic: String) -> [String: Any] {
            [
                "model": model, "max_tokens": maxTokens, "temperature": 0, "ignore_eos": true,
                "messages": [["role": "user", "content": Self.prompt(topic)]],
            ]
        }

        /// One streamed chat request; tokens come from the usage chunk.
        private func stream(url: String, topic: String) async throws -> ChatStreamProbe.Result {
            try await ChatStreamProbe.run(url: url, payload: body(topic: topic))
        }

        /// The user turn of every request.
        static func prompt(_ topic: String) -> String { "Write a long story about \(topic)." }

        /// The same request through `generate` in this process: decode tok/s after the first token.
        private func inProcess(sdk: RunAnywhereSDK, topic: String) async throws -> Double {
            try await chatInProcess(sdk: sdk, topic: topic).tokensPerSecond
        }

        /// One request's chat in this process, with the server's sampling (greedy, no top-k,
        /// no penalty) and exactly `maxTokens` tokens.
        private func chatInProcess(sdk: RunAnywhereSDK, topic: String) async throws -> LLMGenerationResult {
            try await sdk.chat(
                [.user(Self.prompt(topic))],
                options: LLMGenerationOptions(
                    maxTokens: maxTokens,
                    temperature: 0,
                    topP: 1,
                    topK: 0,
                    repetitionPenalty: 1,
                    ignoreEndOfSequence: true
                )
            )
        }
    }
}
