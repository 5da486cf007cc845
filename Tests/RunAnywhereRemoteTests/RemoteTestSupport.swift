import Foundation
import Logging
import RunAnywhere
import RunAnywhereRemote
import RunAnywhereServer
import RunAnywhereTesting

/// A deterministic SDK served on 127.0.0.1, stopped by the test when it wants the server gone.
struct RemoteSide {
    let home: URL
    let sdk: RunAnywhereSDK
    let server: OpenAIServer
    let baseURL: URL

    static func start(apiKey: String? = nil) async throws -> RemoteSide {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-remote-\(UUID().uuidString)")
        let sdk = try RunAnywhereSDK(home: home, modules: [DeterministicBackend()])
        try registerDeterministicModels(in: sdk)
        var logger = Logger(label: "test.remote")
        logger.logLevel = .critical
        let server = try await OpenAIServer.start(
            sdk: sdk,
            configuration: OpenAIServerConfiguration(port: 0, apiKey: apiKey),
            logger: logger
        )
        return RemoteSide(
            home: home,
            sdk: sdk,
            server: server,
            baseURL: URL(string: "http://127.0.0.1:\(server.port)/v1")!
        )
    }

    func stop() async {
        await server.stop()
        await sdk.shutdown()
        try? FileManager.default.removeItem(at: home)
    }
}

/// A deterministic SDK served on 127.0.0.1 for the length of `body`, which gets its `/v1` base URL.
func withRemoteServer<T>(apiKey: String? = nil, _ body: (URL) async throws -> T) async throws -> T {
    let remote = try await RemoteSide.start(apiKey: apiKey)
    do {
        let result = try await body(remote.baseURL)
        await remote.stop()
        return result
    } catch {
        await remote.stop()
        throw error
    }
}
