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
            abstract: "Server throughput and time to first token with 1, 2, 4 and 8 streaming clients.",
            discussion: """
                Starts the server in this process on a free port of 127.0.0.1 with the model loaded \
                with --slots slots. Each round runs every client count once, in order, and one \
                streamed request against an in-process `generate` of the same length; --runs rounds \
                are interleaved and the medians reported. Every request generates exactly \
                --max-tokens tokens (ignore_eos). Clients are AsyncHTTPClient tasks reading the SSE \
                stream; TTFT is measured from sending the request to the first content delta.

                Per client count: server tok/s is every generated token over the level's wall time, \
                prompt processing included. In-process tok/s is the same clients calling `chat` \
                without HTTP, with the prompt cache not reused. Raw tok/s is raw-llama-bench decoding \
                as many sequences together, each the chat-templated prompt one client sends first, \
                over its time from the start of the request (aggregate_tps, prompt included): the \
                figure the server's is held against, also in the 4-to-1 ratio. Raw decode tok/s is its \
                rate after the first token only (generation_tps), a ceiling not comparable with the \
                others. A figure that was not measured prints as "missing" and makes no ratio.
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
            /// The same clients calling `chat` in process, without HTTP, the prompt cache not
            /// reused: generated tokens over the wall time, prompts included. `nil` when not measured.
            var engineTokensPerSecond: Double?
            /// TTFT p95 of those in-process calls (from the call to the first token).
            var engineTTFTP95Ms: Double?
            /// Plain C on the same libllama decoding this many sequences together, one token of
            /// each per `llama_decode` (raw-llama-bench with N_SEQ and `chat`), each sequence the
            /// chat-templated prompt one client sends first: generated tokens over the time from
            /// the start, prompt included (`aggregate_tps`), like ``aggregateTokensPerSecond``.
            var rawAggregateTokensPerSecond: Double?
            /// The same run's decode rate after the first token only (`generation_tps`): the
            /// engine's ceiling, not comparable with the figures that include the prompt.
            var rawDecodeTokensPerSecond: Double?
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
            /// The same ratio for the raw engine's aggregate, prompt included like the server's:
            /// what batching can give on this machine.
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
                _ = try await level(clients: min(slots, 8), url: url, round: 9)
                for run in 0..<runs {
                    var round: [Level] = []
                    for count in clientCounts {
                        var measured = try await level(clients: count, url: url, round: run)
                        let engine = try await engineLevel(sdk: sdk, clients: count)
                        measured.engineTokensPerSecond = engine.rate
                        measured.engineTTFTP95Ms = engine.ttftP95Ms
                        let baseline = try rawLevel(raw, modelPath: modelPath.path, sequences: count)
                        measured.rawAggregateTokensPerSecond = baseline.aggregate
                        measured.rawDecodeTokensPerSecond = baseline.decode
                        round.append(measured)
                    }
                    samples.append(round)
                    // One client, the server then in-process, back to back.
                    serverRates.append(
                        try await stream(url: url, topic: Self.topics[0], number: 990_000 + run).tokensPerSecond
                    )
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
                    engineTokensPerSecond: Self.median(runs.map(\.engineTokensPerSecond)),
                    engineTTFTP95Ms: Self.median(runs.map(\.engineTTFTP95Ms)),
                    rawAggregateTokensPerSecond: Self.median(runs.map(\.rawAggregateTokensPerSecond)),
                    rawDecodeTokensPerSecond: Self.median(runs.map(\.rawDecodeTokensPerSecond))
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
                aggregateRatio4To1: Self.ratio(four?.aggregateTokensPerSecond, one?.aggregateTokensPerSecond),
                rawRatio4To1: Self.ratio(four?.rawAggregateTokensPerSecond, one?.rawAggregateTokensPerSecond),
                ttftP95Ratio4To1: Self.ratio(four?.ttftP95Ms, one?.ttftP95Ms),
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
            print("tok/s: generated tokens over wall time, prompts included; raw decode: after the first token only")
            let headers = [
                "clients", "server tok/s", "in-process tok/s", "raw tok/s", "raw decode tok/s", "TTFT p50 ms",
                "TTFT p95 ms",
            ]
            print(headers.joined(separator: "   "))
            for level in levels {
                let cells = [
                    String(level.clients), Self.text(level.aggregateTokensPerSecond),
                    Self.text(level.engineTokensPerSecond), Self.text(level.rawAggregateTokensPerSecond),
                    Self.text(level.rawDecodeTokensPerSecond), Self.text(level.ttftP50Ms), Self.text(level.ttftP95Ms),
                ]
                print(zip(cells, headers).map { Self.cell($0, width: $1.count) }.joined(separator: "   "))
            }
            if let ratio = report.aggregateRatio4To1 {
                print(
                    "aggregate(4) / aggregate(1), prompts included: server \(CLI.format(ratio, 2)), "
                        + "raw engine \(Self.text(report.rawRatio4To1, 2))"
                )
            }
            if let ratio = report.ttftP95Ratio4To1 { print("TTFT p95(4) / p95(1): \(CLI.format(ratio, 2))") }
            print(
                "one client, server vs in-process: \(CLI.format(serverRate)) vs \(CLI.format(inProcessRate)) tok/s "
                    + "(ratio \(CLI.format(report.serverOverInProcess, 3)))"
            )
        }

        /// The raw engine with `sequences` sequences, after a warm-up repetition: its aggregate
        /// tok/s with the prompts included and its decode-only tok/s, each `nil` when not printed.
        private func rawLevel(
            _ binary: URL,
            modelPath: String,
            sequences: Int
        ) throws -> (aggregate: Double?, decode: Double?) {
            let promptFile = FileManager.default.temporaryDirectory.appendingPathComponent(
                "runanywhere-bench-serve-\(UUID().uuidString).txt"
            )
            // Sequence s gets the topic client s sends first, so raw decodes the prompts the server
            // gets; with `chat` the harness templates each line as one user message.
            let prompts = (0..<sequences).map { Self.prompt(Self.topics[$0 % Self.topics.count], number: $0) }
            try Data(prompts.joined(separator: "\n").utf8).write(to: promptFile)
            defer { try? FileManager.default.removeItem(at: promptFile) }
            let data = try CLI.runProcess(
                binary,
                [
                    modelPath, promptFile.path, String(maxTokens), String(threads), "2", String(contextLength),
                    String(sequences), "chat",
                ]
            )
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
            guard let last = lines.last,
                let object = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
            else { throw SDKException(.internalError, "raw-llama-bench printed no result") }
            // Only the harness's path that templates the lines prints aggregate_tps; a result
            // without it decoded the file verbatim, so its decode rate is not this level's either.
            guard let aggregate = object["aggregate_tps"] as? Double else { return (nil, nil) }
            return (aggregate, object["generation_tps"] as? Double)
        }

        /// The median over the runs, or `nil` when any run lacks the figure: a median of fewer
        /// runs would pass for the same measurement as the others.
        private static func median(_ values: [Double?]) -> Double? {
            let present = values.compactMap { $0 }
            guard !present.isEmpty, present.count == values.count else { return nil }
            return CLI.median(present)
        }

        /// `numerator / denominator`, or `nil` when either is missing or the denominator is not
        /// positive, so that no target is met by a figure that was never measured.
        private static func ratio(_ numerator: Double?, _ denominator: Double?) -> Double? {
            guard let numerator, let denominator, denominator > 0 else { return nil }
            return numerator / denominator
        }

        /// A figure for the table, or "missing": a number would read as a measurement.
        private static func text(_ value: Double?, _ digits: Int = 1) -> String {
            value.map { CLI.format($0, digits) } ?? "missing"
        }

        /// `text` right-aligned in a column `width` characters wide, under its header.
        private static func cell(_ text: String, width: Int) -> String {
            String(repeating: " ", count: max(0, width - text.count)) + text
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

        /// `clients` tasks, each sending `requests` streamed requests one after another; `round`
        /// (0–9) makes their prompts differ from every other round's.
        private func level(clients: Int, url: String, round: Int) async throws -> Level {
            let start = ContinuousClock.now
            let results = try await withThrowingTaskGroup(of: [ChatStreamProbe.Result].self) { group in
                for client in 0..<clients {
                    group.addTask {
                        var results: [ChatStreamProbe.Result] = []
                        for request in 0..<requests {
                            let index = client + request * clients
                            let topic = Self.topics[index % Self.topics.count]
                            // A number no other request of any level has: the server's slots can
                            // reuse the template's prefix, as raw cannot, but never a whole prompt.
                            let number = round * 100_000 + clients * 1_000 + index
                            results.append(try await stream(url: url, topic: topic, number: number))
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

        private func body(topic: String, number: Int) -> [String: Any] {
            [
                "model": model, "max_tokens": maxTokens, "temperature": 0, "ignore_eos": true,
                "messages": [["role": "user", "content": Self.prompt(topic, number: number)]],
            ]
        }

        /// One streamed chat request; tokens come from the usage chunk.
        private func stream(url: String, topic: String, number: Int) async throws -> ChatStreamProbe.Result {
            try await ChatStreamProbe.run(url: url, payload: body(topic: topic, number: number))
        }

        /// The user turn of a request: its topic and a number of six digits, so every prompt has
        /// the same length and none is another's.
        static func prompt(_ topic: String, number: Int) -> String {
            let digits = String(number)
            return
                "Write a long story about \(topic) (story \(String(repeating: "0", count: max(0, 6 - digits.count)))\(digits))."
        }

        /// The same request through `generate` in this process: decode tok/s after the first token.
        private func inProcess(sdk: RunAnywhereSDK, topic: String) async throws -> Double {
            try await chatInProcess(sdk: sdk, topic: topic).tokensPerSecond
        }

        /// One request's chat in this process, with the server's sampling (greedy, no top-k,
        /// no penalty), exactly `maxTokens` tokens and every prompt evaluated from scratch.
        private func chatInProcess(sdk: RunAnywhereSDK, topic: String) async throws -> LLMGenerationResult {
            try await sdk.chat(
                [.user(Self.prompt(topic, number: 999_999))],
                options: LLMGenerationOptions(
                    maxTokens: maxTokens,
                    temperature: 0,
                    topP: 1,
                    topK: 0,
                    repetitionPenalty: 1,
                    ignoreEndOfSequence: true,
                    // Right after the server level with the same topics: reusing the prompts it left
                    // cached would flatter TTFT next to raw, which evaluates every prompt.
                    reusePromptCache: false
                )
            )
        }
    }
}
