import Foundation
import Hummingbird
import Logging
import RunAnywhereHTTPServing
import RunAnywhereTestSupport
import RunAnywhereTesting
import Synchronization
import Testing

@_spi(Backend) @testable import RunAnywhere
@testable import RunAnywhereControlPlane

/// A Sentry-compatible collector on 127.0.0.1: it takes envelopes at `/api/PROJECT/envelope/`,
/// answers with the statuses it is told to (200 once they run out), and keeps what arrived.
final class LocalErrorCollector: Sendable {
    struct Arrival: Sendable {
        let path: String
        let auth: String?
        let contentType: String?
        let body: Data
        let status: Int
    }

    private struct State: Sendable {
        var statuses: [Int] = []
        var arrivals: [Arrival] = []
        var watchers: [AsyncStream<Void>.Continuation] = []
    }

    private let state = Mutex(State())
    private let run: Mutex<HTTPServerRun?> = Mutex(nil)

    static func start() async throws -> LocalErrorCollector {
        let collector = LocalErrorCollector()
        let router = Router()
        router.post("/api/:project/envelope/") { request, _ -> Response in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            let status = collector.record(
                path: request.uri.path,
                auth: request.headers.first { $0.name.canonicalName == "x-sentry-auth" }?.value,
                contentType: request.headers[.contentType],
                body: Data(buffer: body)
            )
            return Response(status: .init(code: status))
        }
        var logger = Logger(label: "LocalErrorCollector")
        logger.logLevel = .critical
        let run = try #require(
            await HTTPServerRun.start(router.buildResponder(), host: "127.0.0.1", port: 0, logger: logger)
        )
        collector.run.withLock { $0 = run }
        return collector
    }

    var port: Int { run.withLock { $0?.port ?? 0 } }

    func dsn(key: String = "publickey42", project: String = "42") -> String {
        "http://\(key)@127.0.0.1:\(port)/\(project)"
    }

    /// The next requests get these statuses, one each.
    func answer(_ statuses: [Int]) { state.withLock { $0.statuses = statuses } }

    var arrivals: [Arrival] { state.withLock { $0.arrivals } }

    /// The taken (2xx) envelopes whose message contains `marker`.
    func taken(containing marker: String) -> [Arrival] {
        arrivals.filter { (200..<300).contains($0.status) && String(decoding: $0.body, as: UTF8.self).contains(marker) }
    }

    /// Waits until `condition` holds on the arrivals (checked at each one); false after `timeout`.
    func wait(timeout: Duration = .seconds(60), until condition: @escaping @Sendable ([Arrival]) -> Bool) async -> Bool
    {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        state.withLock { $0.watchers.append(continuation) }
        if condition(arrivals) { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in stream where condition(self.arrivals) { return true }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let result = await group.next() ?? false
            group.cancelAll()
            continuation.finish()
            return result
        }
    }

    private func record(path: String, auth: String?, contentType: String?, body: Data) -> Int {
        let (status, watchers) = state.withLock { state -> (Int, [AsyncStream<Void>.Continuation]) in
            let status = state.statuses.isEmpty ? 200 : state.statuses.removeFirst()
            state.arrivals.append(Arrival(path: path, auth: auth, contentType: contentType, body: body, status: status))
            return (status, state.watchers)
        }
        for watcher in watchers { watcher.yield() }
        return status
    }

    func stop() async {
        if let run = run.withLock({ $0 }) { await run.stop(gracePeriod: .seconds(5)) }
    }

    /// Runs `body` with a collector, stopped (gracefully) afterwards.
    static func with<T>(_ body: (LocalErrorCollector) async throws -> T) async throws -> T {
        let collector = try await start()
        do {
            let result = try await body(collector)
            await collector.stop()
            return result
        } catch {
            await collector.stop()
            throw error
        }
    }
}

/// An envelope split into its three JSON lines, checked against Sentry's format.
struct ParsedEnvelope {
    let header: [String: Any]
    let itemHeader: [String: Any]
    let event: [String: Any]
    let payloadBytes: Int

    init(_ body: Data) throws {
        let lines = body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        try #require(lines.count == 4 && lines[3].isEmpty, "an envelope is three lines ending in a newline")
        header = try #require(try JSONSerialization.jsonObject(with: Data(lines[0])) as? [String: Any])
        itemHeader = try #require(try JSONSerialization.jsonObject(with: Data(lines[1])) as? [String: Any])
        event = try #require(try JSONSerialization.jsonObject(with: Data(lines[2])) as? [String: Any])
        payloadBytes = lines[2].count
    }

    var message: String { (event["message"] as? [String: Any])?["formatted"] as? String ?? "" }
}

/// A deterministic SDK in its own home, shut down afterwards.
private func withSDK<T>(home: URL? = nil, _ body: (RunAnywhereSDK) async throws -> T) async throws -> T {
    let folder = home ?? FileManager.default.temporaryDirectory.appendingPathComponent("ra-err-\(UUID().uuidString)")
    defer { if home == nil { try? FileManager.default.removeItem(at: folder) } }
    let sdk = try RunAnywhereSDK(home: folder, modules: [DeterministicBackend()])
    do {
        let result = try await body(sdk)
        await sdk.shutdown()
        return result
    } catch {
        await sdk.shutdown()
        throw error
    }
}

@Suite("Remote error reporting")
struct ErrorReportingTests {
    @Test(
        "Warnings and errors reach a Sentry-compatible collector as envelopes in Sentry's format, with nothing sensitive"
    )
    func envelopes() async throws {
        try await LocalErrorCollector.with { collector in
            try await withSDK { sdk in
                try await sdk.setRemoteErrorReportingEnabled(true, sentryDSN: collector.dsn())
                #expect(await sdk.isRemoteErrorReportingEnabled)
                let logger = SDKLogger(category: "Download")
                logger.warning(
                    "envelope-marker: cannot open /home/ana/models/secret.gguf with api_key=sk-live-abcdef1234567890XYZ "
                        + "for 'zebra quartz walrus'"
                )
                logger.error("envelope-marker: Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.signature failed")
                logger.info("envelope-marker: an info line is not reported")
                let arrived = await collector.wait { _ in collector.taken(containing: "envelope-marker").count >= 2 }
                #expect(arrived, "\(collector.arrivals.count) envelopes arrived")
                let envelopes = collector.taken(containing: "envelope-marker")
                #expect(envelopes.count == 2)
                for arrival in envelopes {
                    #expect(arrival.path == "/api/42/envelope/")
                    #expect(arrival.contentType == "application/x-sentry-envelope")
                    let auth = try #require(arrival.auth)
                    #expect(auth.hasPrefix("Sentry ") && auth.contains("sentry_version=7"))
                    #expect(
                        auth.contains("sentry_key=publickey42") && auth.contains("sentry_client=runanywhere.swift/")
                    )
                    let envelope = try ParsedEnvelope(arrival.body)
                    let id = try #require(envelope.header["event_id"] as? String)
                    #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
                    #expect(envelope.event["event_id"] as? String == id)
                    #expect(envelope.header["dsn"] as? String == collector.dsn())
                    #expect(
                        (envelope.header["sent_at"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) } != nil
                    )
                    #expect(envelope.itemHeader["type"] as? String == "event")
                    #expect(envelope.itemHeader["length"] as? Int == envelope.payloadBytes)
                    #expect(envelope.event["platform"] as? String == "other")
                    #expect(envelope.event["logger"] as? String == "com.runanywhere.Download")
                    #expect(envelope.event["release"] as? String == "runanywhere.swift@\(RunAnywhere.version)")
                    #expect(envelope.event["environment"] as? String == "development")
                    #expect(envelope.event["timestamp"] is Double)
                    #expect(
                        ((envelope.event["tags"] as? [String: Any])?["source"] as? String)?.hasPrefix(
                            "RunAnywhereControlPlaneTests/"
                        ) == true
                    )
                    let text = String(decoding: arrival.body, as: UTF8.self)
                    for secret in ["/home/ana", "sk-live", "zebra quartz walrus", "eyJhbGci", "payload.signature"] {
                        #expect(!text.contains(secret), "\(secret) left the device: \(text)")
                    }
                }
                let levels = try envelopes.map { try ParsedEnvelope($0.body).event["level"] as? String ?? "" }.sorted()
                #expect(levels == ["error", "warning"])
                let warning = try #require(
                    try envelopes.map { try ParsedEnvelope($0.body) }.first {
                        $0.event["level"] as? String == "warning"
                    }
                )
                #expect(warning.message.contains("[PATH]") && warning.message.contains("api_key=[REDACTED]"))
                #expect(warning.message.contains("[TEXT]"), "\(warning.message)")
                #expect(collector.taken(containing: "an info line").isEmpty)
            }
        }
    }

    @Test("An unreachable collector keeps the reports on disk across a restart; each arrives once when it is back")
    func retriesAndRestarts() async throws {
        try await LocalErrorCollector.with { collector in
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-err-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            collector.answer(Array(repeating: 503, count: 1_000))
            try await withSDK(home: home) { sdk in
                try await sdk.setRemoteErrorReportingEnabled(true, sentryDSN: collector.dsn())
                SDKLogger(category: "Restart").error("restart-marker one")
                SDKLogger(category: "Restart").error("restart-marker two")
                // The background upload tried and was refused; the reports stay queued. Its first
                // attempt may carry another suite's error line, which every reporting instance
                // queues too and which, refused, stays ahead of the markers: any refusal will do.
                #expect(await collector.wait { $0.contains { $0.status == 503 } })
                await expectCode(.remoteServerError) { _ = try await sdk.flushErrorReports() }
                #expect(try sdk.pendingErrorReportCount() >= 2)
            }
            collector.answer([])
            try await withSDK(home: home) { sdk in
                #expect(try sdk.pendingErrorReportCount() >= 2, "queued on disk, past the restart")
                try await sdk.setRemoteErrorReportingEnabled(true, sentryDSN: collector.dsn())
                #expect(await collector.wait { _ in collector.taken(containing: "restart-marker").count >= 2 })
                _ = try await sdk.flushErrorReports()
                let taken = collector.taken(containing: "restart-marker")
                let ids = try taken.map { try ParsedEnvelope($0.body).header["event_id"] as? String ?? "" }
                #expect(ids.count == 2 && Set(ids).count == 2, "each report taken once: \(ids)")
                // The refused attempts carried the same ids: the collector counts each report once.
                let refusedIds = try collector.arrivals.filter { $0.status == 503 }
                    .filter { String(decoding: $0.body, as: UTF8.self).contains("restart-marker") }
                    .map { try ParsedEnvelope($0.body).header["event_id"] as? String ?? "" }
                #expect(Set(refusedIds).isSubset(of: Set(ids)))
            }
        }
    }

    @Test("Identical lines within a minute are one report; an app's own logger reports through the handler")
    func foldingAndAppLines() async throws {
        try await LocalErrorCollector.with { collector in
            try await withSDK { sdk in
                try await sdk.setRemoteErrorReportingEnabled(true, sentryDSN: collector.dsn())
                for _ in 0..<5 { SDKLogger(category: "Fold").warning("fold-marker the same line") }
                let app = Logger(label: "com.example.app.net") { RemoteErrorLogHandler(label: $0) }
                app.error("app-marker the app's own error")
                app.info("app-marker info is not reported")
                let sdkThroughHandler = Logger(label: "com.runanywhere.Fold") { RemoteErrorLogHandler(label: $0) }
                sdkThroughHandler.error("fold-marker through the handler")
                #expect(await collector.wait { _ in !collector.taken(containing: "app-marker").isEmpty })
                _ = try await sdk.flushErrorReports()
                #expect(collector.taken(containing: "fold-marker").count == 1, "five identical lines, one report")
                let appReport = try #require(collector.taken(containing: "app-marker").first)
                #expect(try ParsedEnvelope(appReport.body).event["logger"] as? String == "com.example.app.net")
                #expect(collector.taken(containing: "app-marker").count == 1)
            }
        }
    }

    @Test("A malformed DSN, or no destination at all, is a typed error; turning reporting off stops it")
    func configuration() async throws {
        try await withSDK { sdk in
            for dsn in ["not a url", "ftp://key@host/1", "https://host/1", "https://key@host/"] {
                await expectCode(.invalidConfiguration) {
                    try await sdk.setRemoteErrorReportingEnabled(true, sentryDSN: dsn)
                }
            }
            await expectCode(.invalidConfiguration) { try await sdk.setRemoteErrorReportingEnabled(true) }
            #expect(await !sdk.isRemoteErrorReportingEnabled)
            let dsn = try SentryDSN("https://abc@sentry.example.com:8443/relay/77")
            #expect(dsn.envelopeURL.absoluteString == "https://sentry.example.com:8443/relay/api/77/envelope/")
            #expect(!dsn.description.contains("abc"))
            try await sdk.setRemoteErrorReportingEnabled(true, sentryDSN: "http://k@127.0.0.1:9/1")
            #expect(await sdk.isRemoteErrorReportingEnabled)
            try await sdk.setRemoteErrorReportingEnabled(false)
            #expect(await !sdk.isRemoteErrorReportingEnabled)
            await expectCode(.invalidConfiguration) { _ = try await sdk.flushErrorReports() }
        }
    }

    @Test(
        "The original SDK's switch returns at once; its task turns reporting off, and on without a destination leaves it off"
    )
    func seedSwitch() async throws {
        try await withSDK { sdk in
            try await sdk.setRemoteErrorReportingEnabled(true, sentryDSN: "http://k@127.0.0.1:9/1")
            await sdk.setSentryLoggingEnabled(false).value
            #expect(await !sdk.isRemoteErrorReportingEnabled)
            // No DSN and no control plane: a warning is logged and nothing is on.
            await sdk.setSentryLoggingEnabled(true).value
            #expect(await !sdk.isRemoteErrorReportingEnabled)
        }
    }
}
