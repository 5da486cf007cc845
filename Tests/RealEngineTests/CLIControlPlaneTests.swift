import Foundation
import Logging
import RealEngineTestSupport
import RunAnywhereControlPlaneServer
import Testing

@_spi(Backend) @testable import RunAnywhere

extension RealEngineTests {
    @Suite("The CLI against the reference control plane", .tags(.cli))
    struct CLIControlPlaneTests {
        @Test("Telemetry queued by CLI processes survives their exit and two kills mid-upload, and is counted once")
        func telemetrySurvivesKills() async throws {
            try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-cli-cp-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let h = ["--home", home.path]
            let llm = try #require(try DefaultModels.llm().localPath)
            let imported = try cli(
                ["models", "import", llm.path, "--id", "llm", "--category", "llm", "--framework", "llamacpp"] + h
            )
            try #require(imported.status == 0, "\(imported.err)")

            var logger = Logger(label: "test.control-plane")
            logger.logLevel = .critical
            let key = "ra-cli-key-0001"
            let server = try await ControlPlaneServer.start(
                configuration: ControlPlaneServerConfiguration(port: 0, apiKeys: [key]),
                logger: logger
            )
            defer { Task { await server.stop() } }
            let environment = [
                "RUNANYWHERE_CONTROL_PLANE_URL": server.baseURL.absoluteString,
                "RUNANYWHERE_API_KEY": key,
                // Longer than the test takes: only the kills end these uploads.
                "RUNANYWHERE_CONTROL_PLANE_TIMEOUT": "120",
            ]

            // Two real generations while the control plane is down: their events wait on disk
            // after the processes exit.
            server.fault = .unavailable
            for prompt in ["Name a colour.", "Name a fruit."] {
                let run = try cli(
                    ["generate", "--model", "llm", "--prompt", prompt, "--max-tokens", "4"] + h,
                    environment: environment
                )
                try #require(run.status == 0, "\(run.err)")
            }
            let status = try cli(["telemetry", "status", "--json"] + h, environment: environment)
            try #require(status.status == 0, "\(status.err)")
            let queued = try #require(try json(Substring(status.out))["pending"] as? Int)
            // A model load and a generation per run.
            #expect(queued == 4)

            /// Starts `telemetry flush`, waits until the server sees `milestone`, and kills it.
            func killFlush(at milestone: String) async throws {
                let (signals, continuation) = AsyncStream.makeStream(of: String.self)
                let arrivals = server.arrivingRequests()
                let forward = Task {
                    for await operation in arrivals { continuation.yield(operation) }
                }
                defer { forward.cancel() }
                let (process, _, err) = try startCLI(["telemetry", "flush", "--json"] + h, environment: environment)
                // A process that ends on its own must fail the test, not leave it waiting.
                process.terminationHandler = { _ in continuation.yield("exited") }
                if !process.isRunning { continuation.yield("exited") }
                let seen = await signals.first { $0 == milestone || $0 == "exited" }
                try #require(
                    seen == milestone,
                    "\(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))"
                )
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                #expect(process.terminationReason == .uncaughtSignal)
            }

            // Killed while the upload is on its way: nothing stored, nothing lost.
            server.fault = .hangTelemetry
            try await killFlush(at: "uploadTelemetry")
            #expect(server.statistics.eventsStored == 0)

            // Killed after the server stored the batch but before the answer: the client
            // cannot know, so it sends the events again later.
            server.fault = .storeTelemetryThenHang
            try await killFlush(at: "uploadTelemetry.stored")
            #expect(server.statistics.eventsStored == queued)

            server.fault = .none
            let flushed = try cli(["telemetry", "flush", "--json"] + h, environment: environment)
            try #require(flushed.status == 0, "\(flushed.err)")
            let report = try json(Substring(flushed.out))
            #expect(report["pending"] as? Int == 0)
            #expect(report["state"] as? String == "connected")
            let statistics = server.statistics
            // Every event stored exactly once; the second sending was counted as duplicates.
            #expect(statistics.eventsStored == queued)
            #expect(statistics.duplicateEvents == queued)
            #expect(Set(server.storedEventIds).count == queued)
            #expect(
                server.storedEventTypes.sorted() == [
                    "generation_completed", "generation_completed", "model_loaded", "model_loaded",
                ]
            )
            // One device, however many processes registered it.
            #expect(statistics.devices == 1)
        }
    }
}
