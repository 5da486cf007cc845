import AsyncHTTPClient
import Crypto
import Foundation
import Hummingbird
import Logging
import NIOCore
import RunAnywhere
import RunAnywhereControlPlane
import RunAnywhereControlPlaneServer
import RunAnywhereHTTPServing
import RunAnywhereTesting
import RunAnywhereTestingFileServer
import Testing

/// The key every test's control plane accepts.
private let apiKey = "ra-test-key-0001"

/// A control plane on 127.0.0.1 for one test, stopped afterwards.
private func withControlPlane<T>(
    _ configuration: ControlPlaneServerConfiguration = ControlPlaneServerConfiguration(port: 0, apiKeys: [apiKey]),
    _ body: (ControlPlaneServer) async throws -> T
) async throws -> T {
    var logger = Logger(label: "test.control-plane")
    logger.logLevel = .critical
    let server = try await ControlPlaneServer.start(configuration: configuration, logger: logger)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// A deterministic SDK whose phase 2 talks to `baseURL`; its home outlives it when `home` is given.
private func withControlPlaneSDK<T>(
    baseURL: URL,
    home: URL? = nil,
    key: String = apiKey,
    // Only a hang may reach the timeout: a slow answer on a loaded machine must not (a 5 s one did,
    // and the retry re-authenticated where a token refresh was expected).
    module: ControlPlaneModule = ControlPlaneModule(requestTimeout: .seconds(30)),
    _ body: (RunAnywhereSDK) async throws -> T
) async throws -> T {
    let folder = home ?? FileManager.default.temporaryDirectory.appendingPathComponent("ra-cp-\(UUID().uuidString)")
    defer { if home == nil { try? FileManager.default.removeItem(at: folder) } }
    let sdk = try RunAnywhereSDK(
        home: folder,
        apiKey: key,
        baseURL: baseURL.absoluteString,
        modules: [DeterministicBackend(), module]
    )
    try registerDeterministicModels(in: sdk)
    do {
        let result = try await body(sdk)
        await sdk.shutdown()
        return result
    } catch {
        await sdk.shutdown()
        throw error
    }
}

/// Runs `count` short generations on the deterministic model: each queues one telemetry event.
private func generate(_ count: Int, in sdk: RunAnywhereSDK, prompt: String = "Say something short") async throws {
    try await sdk.loadModel(DeterministicModels.llm)
    for _ in 0..<count {
        _ = try await sdk.generate(prompt, options: LLMGenerationOptions(maxTokens: 4))
    }
}

@Suite("Phase 2 against the reference control plane", .serialized)
struct ControlPlaneTests {
    @Test("Phase 2 authenticates, registers the device once across restarts, and downloads a required assignment")
    func registrationAndAssignments() async throws {
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("ra-cp-files-\(UUID().uuidString)")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-cp-home-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: files)
            try? FileManager.default.removeItem(at: home)
        }
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        let descriptor = Data(#"{"backend":"deterministic","id":"assigned-llm"}"#.utf8)
        try descriptor.write(to: files.appendingPathComponent("assigned-llm.json"))
        let sha = SHA256.hash(data: descriptor).map { String(format: "%02x", $0) }.joined()
        let fileServer = try await LocalFileServer.start(root: files)
        defer { Task { await fileServer.stop() } }

        let assignment = ModelAssignment(
            modelId: "assigned-llm",
            name: "Assigned LLM",
            category: "llm",
            framework: "deterministic",
            required: true,
            files: [
                RemoteFile(
                    url: fileServer.url(for: "assigned-llm.json"),
                    sha256: sha,
                    sizeBytes: Int64(descriptor.count)
                )
            ]
        )
        let configuration = ControlPlaneServerConfiguration(port: 0, apiKeys: [apiKey], assignments: [assignment])
        try await withControlPlane(configuration) { server in
            let deviceId = try await withControlPlaneSDK(baseURL: server.baseURL, home: home) { sdk in
                try await sdk.completeServicesInitialization()
                let status = sdk.controlPlaneStatus
                #expect(status.state == .connected)
                #expect(status.deviceWasNew == true)
                #expect(status.assignedModels == ["assigned-llm"])
                #expect(!sdk.isOfflineMode)
                // Joins the download phase 2 started (or completes at once if it is done).
                let model = try await sdk.downloadModel("assigned-llm") { _ in }
                #expect(model.isDownloaded)
                try await sdk.loadModel("assigned-llm")
                let text = try await sdk.generate("Hello", options: LLMGenerationOptions(maxTokens: 3)).text
                #expect(!text.isEmpty)
                return try #require(status.deviceId)
            }
            // A restart registers the same device again: updated, not duplicated.
            try await withControlPlaneSDK(baseURL: server.baseURL, home: home) { sdk in
                try await sdk.completeServicesInitialization()
                #expect(sdk.controlPlaneStatus.deviceWasNew == false)
                #expect(sdk.controlPlaneStatus.deviceId == deviceId)
                #expect(try sdk.deviceId == deviceId)
            }
            // Another API key on the same home never rides on the first key's stored session.
            try await withControlPlaneSDK(baseURL: server.baseURL, home: home, key: "ra-other-key-0002") { sdk in
                try await sdk.completeServicesInitialization()
                #expect(sdk.controlPlaneStatus.state == .offline)
                #expect(sdk.controlPlaneStatus.lastError?.code == .remoteUnauthorized)
            }
            let statistics = server.statistics
            #expect(statistics.devices == 1)
            #expect(statistics.registrations == 2)
            // The second start reused the tokens kept in the secure store.
            #expect(statistics.authentications == 1)
        }
    }

    @Test(
        "A body over the limit is 413 and a malformed one 400, never read whole or answered 500, and the server goes on"
    )
    func oversizedBodies() async throws {
        try await withControlPlane { server in
            let url = server.baseURL.appendingPathComponent("v1/telemetry/batches").absoluteString
            // Announced: refused from the header.
            var announced = HTTPClientRequest(url: url)
            announced.method = .POST
            announced.headers.add(name: "Content-Type", value: "application/json")
            announced.body = .bytes(ByteBuffer(repeating: UInt8(ascii: " "), count: 5 << 20))
            let first = try await HTTPClient.shared.execute(announced, timeout: .seconds(60))
            #expect(first.status.code == 413)
            let text = String(buffer: try await first.body.collect(upTo: 1 << 20))
            #expect(text.contains("request_too_large"), "\(text)")
            // Streamed without a length: cut at the limit.
            var streamed = HTTPClientRequest(url: url)
            streamed.method = .POST
            streamed.headers.add(name: "Content-Type", value: "application/json")
            let chunk = ByteBuffer(repeating: UInt8(ascii: " "), count: 64 << 10)
            streamed.body = .stream(
                AsyncStream { continuation in
                    for _ in 0..<96 { continuation.yield(chunk) }
                    continuation.finish()
                },
                length: .unknown
            )
            let second = try await HTTPClient.shared.execute(streamed, timeout: .seconds(60))
            #expect(second.status.code == 413)
            // The API still answers.
            func token(_ body: String) async throws -> (status: UInt, text: String) {
                var request = HTTPClientRequest(
                    url: server.baseURL.appendingPathComponent("v1/auth/token").absoluteString
                )
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: body))
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
                return (response.status.code, String(buffer: try await response.body.collect(upTo: 1 << 20)))
            }
            #expect(try await token(#"{"api_key":"wrong"}"#).status == 401)
            // A body that is not the API's JSON is the client's 400, naming the field, never a 500.
            let missing = try await token(#"{"apiKey":"wrong"}"#)
            #expect(missing.status == 400 && missing.text.contains("invalid_request"), "\(missing)")
            #expect(missing.text.contains("api_key"), "\(missing)")
            let garbage = try await token("not json")
            #expect(garbage.status == 400 && garbage.text.contains("invalid_request"), "\(garbage)")
        }
    }

    @Test("A control plane that answers with 20 MiB is a bad response the SDK stops reading, and the SDK works offline")
    func oversizedAnswer() async throws {
        // Whatever answers at the control plane's address: a token answer of 20 MiB.
        let router = Router()
        router.post("/v1/auth/token") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(repeating: UInt8(ascii: " "), count: 20 << 20))
            )
        }
        var logger = Logger(label: "test.hostile-control-plane")
        logger.logLevel = .critical
        let run = try #require(
            await HTTPServerRun.start(router.buildResponder(), host: "127.0.0.1", port: 0, logger: logger)
        )
        let baseURL = try #require(URL(string: "http://127.0.0.1:\(run.port)"))
        do {
            try await withControlPlaneSDK(baseURL: baseURL) { sdk in
                try await sdk.completeServicesInitialization()
                #expect(sdk.controlPlaneStatus.state == .offline)
                let error = sdk.controlPlaneStatus.lastError
                #expect(error?.code == .remoteBadResponse, "\(String(describing: error))")
                #expect(error?.message.contains("over 16 MiB") == true, "\(String(describing: error))")
                try await generate(1, in: sdk)
            }
            await run.stop(gracePeriod: .seconds(1))
        } catch {
            await run.stop(gracePeriod: .seconds(1))
            throw error
        }
    }

    @Test(
        "An expired access token is renewed once and the call goes through; a refused refresh falls back to the key; the key's owner is known throughout"
    )
    func tokenRefresh() async throws {
        let owner = ControlPlaneKeyOwner(userId: "user-7", organizationId: "org-3")
        let configuration = ControlPlaneServerConfiguration(port: 0, apiKeys: [apiKey], keyOwners: [apiKey: owner])
        try await withControlPlane(configuration) { server in
            try await withControlPlaneSDK(baseURL: server.baseURL) { sdk in
                try await sdk.completeServicesInitialization()
                #expect(sdk.controlPlaneStatus.userId == "user-7")
                #expect(sdk.controlPlaneStatus.organizationId == "org-3")
                // The original SDK's names for the same, on the instance.
                #expect(sdk.isAuthenticated)
                #expect(sdk.isDeviceRegistered())
                #expect(sdk.getUserId() == "user-7")
                #expect(sdk.getOrganizationId() == "org-3")
                try await generate(2, in: sdk)
                server.expireAccessTokens()
                let receipt = try await sdk.flushTelemetry()
                #expect(receipt.accepted >= 2)
                #expect(server.statistics.expiredTokenRefusals == 1)
                #expect(server.statistics.refreshes == 1)
                #expect(sdk.controlPlaneStatus.userId == "user-7", "a refreshed session keeps its owner")
                #expect(sdk.controlPlaneStatus.organizationId == "org-3")

                // Both tokens gone: the SDK authenticates again with its API key.
                server.expireAccessTokens()
                server.revokeRefreshTokens()
                try await generate(1, in: sdk)
                #expect(try await sdk.flushTelemetry().accepted >= 1)
                #expect(server.statistics.authentications == 2)
                #expect(try sdk.pendingTelemetryCount() == 0)
            }
        }
    }

    @Test("A token refused again right after renewal is a typed error, and the events stay queued")
    func tokenRefusedAfterRenewal() async throws {
        // Tokens that are expired as soon as they are issued: every renewal is refused too.
        let configuration = ControlPlaneServerConfiguration(port: 0, apiKeys: [apiKey], accessTokenLifetime: .zero)
        try await withControlPlane(configuration) { server in
            try await withControlPlaneSDK(baseURL: server.baseURL) { sdk in
                try await sdk.completeServicesInitialization()
                #expect(sdk.controlPlaneStatus.state == .offline)
                #expect(sdk.controlPlaneStatus.lastError?.code == .remoteUnauthorized)
                try await generate(2, in: sdk)
                let error = await #expect(throws: SDKException.self) { try await sdk.flushTelemetry() }
                #expect(error?.code == .remoteUnauthorized)
                #expect(error?.message.contains("renewed") == true)
                #expect(try sdk.pendingTelemetryCount() >= 2)
            }
        }
    }

    @Test("A wrong API key leaves the SDK working offline with a typed error")
    func wrongKey() async throws {
        try await withControlPlane { server in
            try await withControlPlaneSDK(baseURL: server.baseURL, key: "ra-wrong-key-999") { sdk in
                try await sdk.completeServicesInitialization()
                #expect(sdk.isOfflineMode)
                #expect(sdk.controlPlaneStatus.lastError?.code == .remoteUnauthorized)
                try await generate(1, in: sdk)
            }
        }
    }

    @Test("A control plane that hangs costs phase 2 one timeout, never the start; it connects once it answers")
    func hangingControlPlane() async throws {
        try await withControlPlane { server in
            server.fault = .hang
            // The timeout also covers the requests that must succeed: ten times what a local
            // answer takes on a busy machine, so only the hang reaches it.
            let module = ControlPlaneModule(requestTimeout: .seconds(10))
            try await withControlPlaneSDK(baseURL: server.baseURL, module: module) { sdk in
                try await sdk.completeServicesInitialization()
                #expect(sdk.areServicesReady)
                #expect(sdk.isOfflineMode)
                #expect(sdk.controlPlaneStatus.state == .offline)
                #expect(sdk.controlPlaneStatus.lastError?.code == .remoteTimeout)
                // The app works meanwhile, and its telemetry waits on disk.
                try await generate(2, in: sdk)
                #expect(try sdk.pendingTelemetryCount() >= 2)
                server.fault = .none
                // The background loop may get there first; either way every event arrives.
                try await sdk.syncControlPlane()
                #expect(sdk.controlPlaneStatus.state == .connected)
                try await sdk.flushTelemetry()
                #expect(try sdk.pendingTelemetryCount() == 0)
                #expect(server.statistics.eventsStored >= 2)
            }
        }
    }

    @Test("Nothing listening at the control plane's address: offline at once, telemetry queued")
    func unreachableControlPlane() async throws {
        // A port that was just free: bind the server, note its port, stop it.
        let port = try await withControlPlane { $0.port }
        let baseURL = URL(string: "http://127.0.0.1:\(port)")!
        try await withControlPlaneSDK(baseURL: baseURL) { sdk in
            try await sdk.completeServicesInitialization()
            #expect(sdk.controlPlaneStatus.lastError?.code == .remoteUnreachable)
            try await generate(3, in: sdk)
            #expect(try sdk.pendingTelemetryCount() >= 3)
            let error = await #expect(throws: SDKException.self) { try await sdk.flushTelemetry() }
            #expect(error?.code == .remoteUnreachable)
        }
    }

    @Test("Telemetry outlives a control plane that is down, and an upload whose answer was lost is counted once")
    func telemetryDurability() async throws {
        try await withControlPlane { server in
            // The timeout also covers the requests that must succeed: ten times what a local
            // answer takes on a busy machine, so only the hang reaches it.
            let module = ControlPlaneModule(requestTimeout: .seconds(10))
            try await withControlPlaneSDK(baseURL: server.baseURL, module: module) { sdk in
                try await sdk.completeServicesInitialization()
                #expect(try await sdk.flushTelemetry() == TelemetryReceipt())

                // Down (503) for a while: nothing is lost.
                server.fault = .unavailable
                try await generate(3, in: sdk)
                let queued = try sdk.pendingTelemetryCount()
                #expect(queued >= 3)
                let down = await #expect(throws: SDKException.self) { try await sdk.flushTelemetry() }
                #expect(down?.code == .remoteServerError)
                #expect(try sdk.pendingTelemetryCount() == queued)
                server.fault = .none
                #expect(try await sdk.flushTelemetry() == TelemetryReceipt(accepted: queued, duplicates: 0))

                // Stored, but the answer never comes: sent again, and counted once.
                server.fault = .storeTelemetryThenHang
                try await generate(2, in: sdk)
                let second = try sdk.pendingTelemetryCount()
                let lost = await #expect(throws: SDKException.self) { try await sdk.flushTelemetry() }
                #expect(lost?.code == .remoteTimeout)
                #expect(try sdk.pendingTelemetryCount() == second)
                server.fault = .none
                #expect(try await sdk.flushTelemetry() == TelemetryReceipt(accepted: 0, duplicates: second))
                #expect(server.statistics.eventsStored == queued + second)
                #expect(Set(server.storedEventIds).count == server.storedEventIds.count)
            }
        }
    }

    @Test("Telemetry carries metrics and error codes, never the prompt or the output")
    func telemetryHasNoText() async throws {
        try await withControlPlane { server in
            try await withControlPlaneSDK(baseURL: server.baseURL) { sdk in
                try await sdk.completeServicesInitialization()
                // Words no metric, UUID or timestamp can spell by chance (a digit string can:
                // "4711" once turned up inside a tokens-per-second figure).
                try await generate(1, in: sdk, prompt: "My bank PIN is zebra-quartz-walrus, please remember it")
                _ = try? await sdk.loadModel("no-such-model")
                try await sdk.flushTelemetry()
                let stored = server.storedEventsJSON.joined(separator: "\n")
                #expect(server.storedEventTypes.contains("generation_completed"))
                #expect(server.storedEventTypes.contains("model_loaded"))
                #expect(!stored.contains("zebra-quartz-walrus"))
                #expect(!stored.contains("walrus"))
                #expect(!stored.contains("PIN"))
                #expect(!stored.contains("remember"))
                #expect(!stored.contains(sdk.paths.home.path))
                #expect(stored.contains("tokens_per_second"))
            }
        }
    }

    @Test("With remote error reporting on, warnings and errors go to the control plane as redacted log events")
    func logEventsReachTheControlPlane() async throws {
        try await withControlPlane { server in
            try await withControlPlaneSDK(baseURL: server.baseURL) { sdk in
                try await sdk.completeServicesInitialization()
                try await sdk.setRemoteErrorReportingEnabled(true)
                SDKLogger(category: "Reporting").warning(
                    "control-plane-marker at /home/ana/private/model.gguf with token=abcdef0123456789abcdef"
                )
                SDKLogger(category: "Reporting").info("control-plane-marker info stays home")
                try await sdk.flushTelemetry()
                let logs = server.storedEventsJSON.filter { $0.contains("control-plane-marker") }
                #expect(logs.count == 1, "\(logs)")
                let event = try #require(logs.first)
                #expect(event.contains(#""type":"log""#) && event.contains(#""level":"warning""#))
                #expect(event.contains(#""logger":"Reporting""#))
                #expect(event.contains("[PATH]") && event.contains("token=[REDACTED]"), "\(event)")
                #expect(!event.contains("/home/ana") && !event.contains("abcdef0123456789"))
            }
        }
    }
}
