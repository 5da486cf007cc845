import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTesting
import Testing

/// A server on a free port of 127.0.0.1 over a fresh deterministic SDK instance; both are
/// stopped and the home deleted afterwards.
func withServer<T>(
    _ configuration: OpenAIServerConfiguration = OpenAIServerConfiguration(port: 0, apiKey: "test-key"),
    timing: DeterministicBackend.Timing = .instant,
    _ body: (ServerClient, RunAnywhereSDK) async throws -> T
) async throws -> T {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-serve-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: home) }
    RunAnywhere.setLogLevel(.error)
    let sdk = try RunAnywhereSDK(home: home, environment: .development, modules: [DeterministicBackend(timing: timing)])
    try registerDeterministicModels(in: sdk)
    var configuration = configuration
    configuration.port = 0
    var logger = Logger(label: "test.server")
    logger.logLevel = .critical
    let server = try await OpenAIServer.start(sdk: sdk, configuration: configuration, logger: logger)
    let client = ServerClient(base: "http://127.0.0.1:\(server.port)", key: configuration.apiKey, routes: server.routes)
    do {
        let result = try await body(client, sdk)
        await server.stop()
        await sdk.shutdown()
        return result
    } catch {
        await server.stop()
        await sdk.shutdown()
        throw error
    }
}

/// A reply: status, headers and the whole body.
struct ServerReply: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: Data

    var json: [String: Any] {
        get throws {
            let value = try JSONSerialization.jsonObject(with: body)
            return try #require(value as? [String: Any], "not a JSON object: \(String(decoding: body, as: UTF8.self))")
        }
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The `data:` payloads of a server-sent-events body, in order.
    var events: [String] {
        text.components(separatedBy: "\n").compactMap { line in
            line.hasPrefix("data: ") ? String(line.dropFirst(6)) : nil
        }
    }

    /// Expects an OpenAI error object with this status and, when given, code and param.
    func expectError(
        _ status: Int,
        code: String? = nil,
        param: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(self.status == status, "\(text)", sourceLocation: sourceLocation)
        let error = try #require(try json["error"] as? [String: Any], "\(text)", sourceLocation: sourceLocation)
        #expect(error["message"] is String, sourceLocation: sourceLocation)
        #expect(error["type"] is String, sourceLocation: sourceLocation)
        #expect(error.keys.contains("param") && error.keys.contains("code"), sourceLocation: sourceLocation)
        if let code { #expect(error["code"] as? String == code, "\(text)", sourceLocation: sourceLocation) }
        if let param { #expect(error["param"] as? String == param, "\(text)", sourceLocation: sourceLocation) }
    }
}

/// Requests to a test server through AsyncHTTPClient.
struct ServerClient: Sendable {
    let base: String
    let key: String?
    /// The server's routes, as ``OpenAIServer/routes`` lists them.
    var routes: [String] = []

    func request(
        _ method: HTTPMethod,
        _ path: String,
        body: ByteBuffer? = nil,
        headers: [(String, String)] = [],
        key: String? = nil
    ) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let key = key ?? self.key { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(body) }
        return request
    }

    func send(_ request: HTTPClientRequest) async throws -> ServerReply {
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 64 << 20)
        return ServerReply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: body))
    }

    func get(_ path: String, key: String? = nil) async throws -> ServerReply {
        try await send(request(.GET, path, key: key))
    }

    func post(_ path: String, json: Any, key: String? = nil) async throws -> ServerReply {
        let data = try JSONSerialization.data(withJSONObject: json)
        return try await post(path, raw: data, key: key)
    }

    func post(
        _ path: String,
        raw: Data,
        contentType: String = "application/json",
        key: String? = nil
    ) async throws
        -> ServerReply
    {
        try await send(
            request(.POST, path, body: ByteBuffer(bytes: raw), headers: [("Content-Type", contentType)], key: key)
        )
    }

    /// A multipart/form-data body of text fields and one file.
    static func multipart(fields: [(String, String)], file: Data?, boundary: String) -> Data {
        var body = Data()
        for (name, value) in fields {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        if let file {
            body += Data(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\nContent-Type: audio/wav\r\n\r\n"
                    .utf8
            )
            body += file + Data("\r\n".utf8)
        }
        body += Data("--\(boundary)--\r\n".utf8)
        return body
    }
}
