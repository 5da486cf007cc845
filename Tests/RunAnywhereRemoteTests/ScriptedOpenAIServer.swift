import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A misbehaving OpenAI-compatible server on 127.0.0.1: each scenario lives under its own
/// base path (`/<scenario>/v1`), lists model `m`, and answers completions its own wrong way.
/// It counts the requests each scenario got, so tests can see retries.
final class ScriptedOpenAIServer: Sendable {
    enum Scenario: String, CaseIterable, Sendable {
        /// An HTML page with status 200.
        case html
        /// An event stream whose chunk is not JSON.
        case garbage
        /// One chunk, then the body ends: no finish reason, no `[DONE]`.
        case truncated
        /// A 10 MB line with no line break.
        case hugeLine
        /// An error object in the middle of the stream.
        case errorChunk
        /// HTTP 401, 404, 429, 500 and 503 with OpenAI error bodies.
        case unauthorized, notFound, rateLimited, serverError, unavailable
        /// Never answers until the test ends.
        case hang
        /// `/models` lists `m`, but the answer to `stream: true` is one JSON completion.
        case ignoresStream
        /// A chunk every 20 ms until the client goes away (or 30 s pass), which it records.
        case endless
    }

    let port: Int
    private let task: Task<Void, any Error>
    private let counts: Counts
    private let gate: Gate
    private let closed: Gate

    private init(port: Int, task: Task<Void, any Error>, counts: Counts, gate: Gate, closed: Gate) {
        self.port = port
        self.task = task
        self.counts = counts
        self.gate = gate
        self.closed = closed
    }

    /// The base URL of `scenario`.
    func baseURL(_ scenario: Scenario) -> URL {
        URL(string: "http://127.0.0.1:\(port)/\(scenario.rawValue)/v1")!
    }

    /// Waits until an `endless` stream's client has gone away.
    func waitForClosedStream() async {
        await closed.wait()
    }

    /// Completion requests `scenario` received.
    func requests(_ scenario: Scenario) -> Int {
        counts.value.withLock { $0[scenario, default: 0] }
    }

    static func start() async throws -> ScriptedOpenAIServer {
        let counts = Counts()
        let gate = Gate()
        let closed = Gate()
        let router = Router()
        router.get("/{scenario}/v1/models") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"object":"list","data":[{"id":"m","object":"model"}]}"#))
            )
        }
        for path in ["/{scenario}/v1/chat/completions", "/{scenario}/v1/completions"] {
            router.post(RouterPath(path)) { _, context in
                guard let name = context.parameters.get("scenario"), let scenario = Scenario(rawValue: name) else {
                    return Response(status: .notFound)
                }
                counts.value.withLock { $0[scenario, default: 0] += 1 }
                return try await respond(scenario, gate: gate, closed: closed)
            }
        }
        var logger = Logger(label: "ScriptedOpenAIServer")
        logger.logLevel = .critical
        let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: nil),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger
        )
        let task = Task { try await app.run() }
        var iterator = portStream.makeAsyncIterator()
        let port = await iterator.next() ?? 0
        return ScriptedOpenAIServer(port: port, task: task, counts: counts, gate: gate, closed: closed)
    }

    /// Lets hanging requests end, then stops the server.
    func stop() async {
        gate.open()
        task.cancel()
        _ = try? await task.value
    }

    private static func respond(_ scenario: Scenario, gate: Gate, closed: Gate) async throws -> Response {
        func stream(_ text: String) -> Response {
            Response(
                status: .ok,
                headers: [.contentType: "text/event-stream"],
                body: .init(byteBuffer: ByteBuffer(string: text))
            )
        }
        func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
            Response(
                status: status,
                headers: [.contentType: "application/json", .retryAfter: "0"],
                body: .init(
                    byteBuffer: ByteBuffer(
                        string: #"{"error":{"message":"\#(message)","type":"x","param":null,"code":null}}"#
                    )
                )
            )
        }
        let chunk = #"data: {"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}"# + "\n\n"
        switch scenario {
        case .html:
            return Response(
                status: .ok,
                headers: [.contentType: "text/html"],
                body: .init(
                    byteBuffer: ByteBuffer(string: "<!DOCTYPE html><html><body>Welcome to nginx!</body></html>")
                )
            )
        case .garbage:
            return stream(chunk + "data: {\"choices\": [{\"delta\": \n\n")
        case .truncated:
            return stream(chunk)
        case .hugeLine:
            return stream(chunk + "data: " + String(repeating: "x", count: 10 << 20))
        case .errorChunk:
            return stream(chunk + #"data: {"error":{"message":"the GPU fell over"}}"# + "\n\n")
        case .unauthorized:
            return error(.unauthorized, "Incorrect API key provided")
        case .notFound:
            return error(.notFound, "The model m does not exist")
        case .rateLimited:
            return error(.tooManyRequests, "Rate limit reached")
        case .serverError:
            return error(.internalServerError, "Internal error")
        case .unavailable:
            return error(.serviceUnavailable, "Overloaded")
        case .hang:
            await gate.wait()
            return error(.internalServerError, "released")
        case .endless:
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream"],
                body: ResponseBody { writer in
                    // Pacing only: the test waits for the client's disconnection, not for time.
                    do {
                        for _ in 0..<1500 {
                            try await writer.write(ByteBuffer(string: chunk))
                            try await Task.sleep(for: .milliseconds(20))
                        }
                        try await writer.finish(nil)
                    } catch {
                        closed.open()
                        throw error
                    }
                }
            )
        case .ignoresStream:
            let whole =
                #"{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","#
                + #""content":"Hello there"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#
            return Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: whole))
            )
        }
    }

    private final class Counts: Sendable {
        let value = Mutex<[Scenario: Int]>([:])
    }

    /// Holds hanging requests until the server stops.
    private final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.open { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }

        func open() {
            let waiters = state.withLock { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }
}
