import ArgumentParser
import Logging
import RunAnywhere
import RunAnywhereCommandLine
import RunAnywhereServer

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BenchCommand {
    /// What the remote path costs: the SDK generating on a remote model against a plain HTTP
    /// client streaming the same request from the same server, taking turns, with this
    /// device's own run of the model beside them.
    struct Remote: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "remote",
            abstract:
                "The remote path's overhead: the SDK on a remote model vs a plain HTTP client of the same server.",
            discussion: """
                The server is `runanywhere serve`'s, started in this process on 127.0.0.1 over the default \
                home's model (one slot). Each round runs, in turn: the SDK's chat on a model registered with \
                registerRemoteModel (in a second SDK instance), one streamed chat request by a plain HTTP \
                client with the same body, and the same chat on the server's own SDK instance, in process. \
                All are greedy with a fixed token count; the medians are reported, with the SDK's overhead \
                (the median of the paired differences).
                """
        )

        @OptionGroup var output: BenchOutputOptions
        @Option(help: "Model id (served, and run here).") var model = CLI.Defaults.llm
        @Option(help: "Tokens generated per request.") var tokens = 32
        @Option(help: "Measured rounds (after a warm-up of each side).") var reps = 9

        static let prompt = "Write a short story about a lighthouse keeper."

        struct Side: Encodable {
            var ttftMs: Double
            var totalMs: Double
            var tokens: Int
        }

        struct Report: Encodable {
            var model: String
            var tokens: Int
            var reps: Int
            var sdkRemote: Side
            var rawHTTP: Side
            var local: Side
            var overheadTtftMs: Double
            var overheadTotalMs: Double
            var overheadPercent: Double
        }

        func execute() async throws {
            try await CLI.start(output.global)
            guard let served = RunAnywhere.shared else { throw SDKException(.notInitialized, "The SDK did not start") }
            var logger = Logger(label: "bench.remote")
            logger.logLevel = .critical
            let server = try await OpenAIServer.start(
                sdk: served,
                configuration: OpenAIServerConfiguration(port: 0, models: [model], preload: true, slots: 1),
                logger: logger
            )
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-bench-remote-\(UUID())")
            defer { try? FileManager.default.removeItem(at: home) }
            let client = try RunAnywhereSDK(home: home, modules: served.registeredModules)
            do {
                let report = try await measure(served: served, client: client, base: server.baseURL)
                await client.shutdown()
                await server.stop()
                try print(report)
            } catch {
                await client.shutdown()
                await server.stop()
                throw error
            }
        }

        private func measure(served: RunAnywhereSDK, client: RunAnywhereSDK, base: URL) async throws -> Report {
            try client.registerRemoteModel(
                id: "\(model)-remote",
                baseURL: base.appendingPathComponent("v1"),
                remoteModelName: model
            )
            // The server's sampling: greedy, no top-k, no penalty; a fixed number of tokens.
            let options = LLMGenerationOptions(
                maxTokens: tokens,
                temperature: 0,
                topP: 1,
                topK: 0,
                repetitionPenalty: 1,
                ignoreEndOfSequence: true
            )
            let payload: [String: Any] = [
                "model": model, "max_tokens": tokens, "temperature": 0, "top_p": 1, "ignore_eos": true,
                "messages": [["role": "user", "content": Self.prompt]],
            ]
            let url = base.absoluteString + "v1/chat/completions"
            var remote: [Side] = []
            var raw: [Side] = []
            var here: [Side] = []
            try await client.loadModel("\(model)-remote")
            for round in 0...reps {
                // The remote model has no `ignore_eos`: the prompt and greedy decoding make the
                // lengths equal, which the report shows.
                let viaSDK = try await client.chat([.user(Self.prompt)], options: options)
                let viaHTTP = try await ChatStreamProbe.run(url: url, payload: payload)
                let onDevice = try await served.chat([.user(Self.prompt)], options: options)
                guard round > 0 else { continue }  // the warm-up
                remote.append(
                    Side(ttftMs: viaSDK.timeToFirstTokenMs, totalMs: viaSDK.totalMs, tokens: viaSDK.generatedTokens)
                )
                raw.append(Side(ttftMs: viaHTTP.ttftMs, totalMs: viaHTTP.totalMs, tokens: viaHTTP.tokens))
                here.append(
                    Side(
                        ttftMs: onDevice.timeToFirstTokenMs,
                        totalMs: onDevice.totalMs,
                        tokens: onDevice.generatedTokens
                    )
                )
            }
            func median(_ sides: [Side]) -> Side {
                Side(
                    ttftMs: CLI.median(sides.map(\.ttftMs)),
                    totalMs: CLI.median(sides.map(\.totalMs)),
                    tokens: Int(CLI.median(sides.map { Double($0.tokens) }))
                )
            }
            let sdkSide = median(remote)
            let rawSide = median(raw)
            let pairs = zip(remote, raw)
            let overheadTotal = CLI.median(pairs.map { $0.totalMs - $1.totalMs })
            return Report(
                model: model,
                tokens: tokens,
                reps: reps,
                sdkRemote: sdkSide,
                rawHTTP: rawSide,
                local: median(here),
                overheadTtftMs: CLI.median(zip(remote, raw).map { $0.ttftMs - $1.ttftMs }),
                overheadTotalMs: overheadTotal,
                overheadPercent: rawSide.totalMs > 0 ? overheadTotal / rawSide.totalMs * 100 : 0
            )
        }

        private func print(_ report: Report) throws {
            if output.json { return try CLI.printJSON(report) }
            Swift.print("model \(report.model), \(report.tokens) tokens, median of \(report.reps) rounds")
            for (name, side) in [
                ("SDK, remote model", report.sdkRemote), ("plain HTTP client", report.rawHTTP),
                ("SDK, in process", report.local),
            ] {
                Swift.print(
                    "  \(name.padded(to: 18))  first token \(CLI.format(side.ttftMs)) ms,"
                        + " total \(CLI.format(side.totalMs)) ms, \(side.tokens) tokens"
                )
            }
            Swift.print(
                "  SDK overhead on the remote path: \(CLI.format(report.overheadTtftMs)) ms to the first token, "
                    + "\(CLI.format(report.overheadTotalMs)) ms a request (\(CLI.format(report.overheadPercent))%)"
            )
        }
    }
}
