import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTesting
import Testing

/// How a test reaches the server.
enum ServerTransport {
    /// Through the router in this process, with no socket (HummingbirdTesting's `.router`).
    case inProcess
    /// Over HTTP on a free port of 127.0.0.1: for what only a socket shows (raw requests,
    /// streamed reads and bodies, disconnects) and for clients that take a URL.
    case http
}

/// The server over a fresh deterministic SDK instance, reached `over` a transport; the server
/// and the SDK are stopped and the home deleted afterwards.
func withServer<T: Sendable>(
    _ configuration: OpenAIServerConfiguration = OpenAIServerConfiguration(port: 0, apiKey: "test-key"),
    timing: DeterministicBackend.Timing = .instant,
    over transport: ServerTransport = .inProcess,
    _ body: @escaping @Sendable (ServerClient, RunAnywhereSDK) async throws -> T
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
    do {
        let result: T
        switch transport {
        case .inProcess:
            let router = try await OpenAIServer.router(sdk: sdk, configuration: configuration, logger: logger)
            let routes = router.routes.map { "\($0.method) \($0.path)" }.sorted()
            let key = configuration.apiKey
            result = try await Application(router: router, logger: logger).test(.router) { tester in
                try await body(ServerClient(.router(tester), key: key, routes: routes), sdk)
            }
        case .http:
            let server = try await OpenAIServer.start(sdk: sdk, configuration: configuration, logger: logger)
            let client = ServerClient(
                .http(base: "http://127.0.0.1:\(server.port)"),
                key: configuration.apiKey,
                routes: server.routes
            )
            do {
                result = try await body(client, sdk)
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        }
        await sdk.shutdown()
        return result
    } catch {
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

/// Requests to a test server, in process or through AsyncHTTPClient.
struct ServerClient: Sendable {
    /// Where requests go.
    enum Transport: Sendable {
        case router(any TestClientProtocol)
        case http(base: String)
    }

    let transport: Transport
    let key: String?
    /// The server's routes, as ``OpenAIServer/routes`` lists them.
    var routes: [String] = []

    init(_ transport: Transport, key: String?, routes: [String] = []) {
        self.transport = transport
        self.key = key
        self.routes = routes
    }

    /// The same server without a key.
    var keyless: ServerClient { ServerClient(transport, key: nil, routes: routes) }

    /// The server's address; only a server reached over HTTP has one.
    var base: String {
        guard case .http(let base) = transport else {
            Issue.record("An in-process server has no address: run this test with `over: .http`")
            return "http://in-process.invalid"
        }
        return base
    }

    /// A request for AsyncHTTPClient (a server reached over HTTP).
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

    /// Sends an AsyncHTTPClient request (a server reached over HTTP) and reads the whole reply.
    func send(_ request: HTTPClientRequest) async throws -> ServerReply {
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 64 << 20)
        return ServerReply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: body))
    }

    /// One request and its whole reply, over whichever transport the server has.
    func exchange(
        _ method: HTTPMethod,
        _ path: String,
        body: ByteBuffer? = nil,
        headers: [(String, String)] = [],
        key: String? = nil
    ) async throws -> ServerReply {
        guard case .router(let tester) = transport else {
            return try await send(request(method, path, body: body, headers: headers, key: key))
        }
        var fields = HTTPFields()
        if let key = key ?? self.key { fields[.authorization] = "Bearer \(key)" }
        for (name, value) in headers {
            fields.append(HTTPField(name: try #require(HTTPField.Name(name)), value: value))
        }
        let method = try #require(HTTPRequest.Method(method.rawValue))
        let response = try await tester.executeRequest(uri: path, method: method, headers: fields, body: body)
        var replyHeaders = HTTPHeaders()
        for field in response.headers { replyHeaders.add(name: field.name.rawName, value: field.value) }
        return ServerReply(status: Int(response.status.code), headers: replyHeaders, body: Data(buffer: response.body))
    }

    func get(_ path: String, key: String? = nil, headers: [(String, String)] = []) async throws -> ServerReply {
        try await exchange(.GET, path, headers: headers, key: key)
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
        try await exchange(
            .POST,
            path,
            body: ByteBuffer(bytes: raw),
            headers: [("Content-Type", contentType)],
            key: key
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
