import Foundation
import MCP
import RunAnywhere
import Synchronization

/// How a request to the server ended.
enum RequestEnding<Answer: Sendable>: Sendable {
    /// The client returned or threw.
    case answered(Result<Answer, any Error>)
    /// The server exited or closed its output first.
    case gone
    /// Nothing came within the timeout.
    case timedOut(Duration)
    /// The calling task was cancelled.
    case cancelled
}

/// One connection: the server process, the MCP SDK client on it, and the raw-answer tap.
///
/// The SDK client has no timeouts, does not fail its waiting requests when the connection
/// ends, and ignores task cancellation; every request here therefore races the answer
/// against the server's end, a timeout and cancellation, and cancels the request in the
/// client when the answer loses, so no task is left waiting.
final class MCPSession: Sendable {
    let client: Client
    let process: ServerProcess
    let tap: ResponseTap
    private let state: Mutex<(name: String, closed: Bool, started: Bool)>

    /// How long each step of shutting the server down may take before the next, harsher one.
    static let shutdownGrace: Duration = .seconds(2)

    init(client: Client, process: ServerProcess, tap: ResponseTap, name: String) {
        self.client = client
        self.process = process
        self.tap = tap
        state = Mutex((name, false, false))
        Task { [client, process] in
            await process.gone.wait()
            // Fails the requests still waiting in the client and ends its read loop.
            await client.disconnect()
        }
    }

    /// The server's name for messages: the given one, else the server's own once known.
    var name: String {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }

    /// Whether the server has answered `initialize` and listed its tools.
    var isStarted: Bool {
        get { state.withLock { $0.started } }
        set { state.withLock { $0.started = newValue } }
    }

    /// Whether ``close(grace:)`` has begun.
    var isClosed: Bool {
        state.withLock { $0.closed }
    }

    /// Ends the session and the server; returns once the server is reaped.
    func close(grace: Duration = MCPSession.shutdownGrace) async {
        state.withLock { $0.closed = true }
        await client.disconnect()
        await process.terminate(grace: grace)
    }

    /// Starts ending the server without waiting, for a source dropped without `close()`.
    func abandon() {
        let alreadyClosed = state.withLock { state in
            let closed = state.closed
            state.closed = true
            return closed
        }
        guard !alreadyClosed else { return }
        Task.detached { [client, process] in
            await client.disconnect()
            await process.terminate(grace: MCPSession.shutdownGrace)
        }
    }

    /// Runs `operation` against the server's end, `timeout` and the caller's cancellation.
    func race<Answer: Sendable>(
        timeout: Duration?,
        _ operation: @escaping @Sendable () async throws -> Answer
    ) async -> RequestEnding<Answer> {
        let outcome = FirstOutcome<RequestEnding<Answer>>()
        Task {
            do {
                outcome.offer(.answered(.success(try await operation())))
            } catch {
                outcome.offer(.answered(.failure(error)))
            }
        }
        let watcher = Task { [process] in
            await process.gone.wait()
            if process.gone.isFired {
                outcome.offer(.gone)
            }
        }
        let timer = timeout.map { timeout in
            Task {
                do {
                    try await Task.sleep(for: timeout)
                    outcome.offer(.timedOut(timeout))
                } catch {}
            }
        }
        let ending = await withTaskCancellationHandler {
            await outcome.value()
        } onCancel: {
            outcome.offer(.cancelled)
        }
        watcher.cancel()
        timer?.cancel()
        return ending
    }

    /// Sends `request` and returns the `result` member of the answer, as the server wrote it.
    ///
    /// - Parameters:
    ///   - what: The request for messages, e.g. `tools/call 'add'`.
    ///   - code: The error code for a refusal, a timeout or a cancellation.
    /// - Throws: `code` when the server refuses, times out or the task is cancelled;
    ///   `.backendError` when the server has gone or the session is closed.
    func exchange<M: MCP.Method>(
        _ request: Request<M>,
        timeout: Duration?,
        what: String,
        code: SDKException.Code
    ) async throws(SDKException) -> JSONValue {
        try await checkOpen(what)
        guard !Task.isCancelled else {
            throw SDKException(code, "\(what) was cancelled")
        }
        tap.expect(request.id)
        let ending = await race(timeout: timeout) { [client] in
            try await client.send(request).value
        }
        let answer = tap.take(request.id)
        switch ending {
        case .answered(.success(let result)):
            if let raw = answer?["result"] {
                return raw
            }
            // The tap missed the line (it cannot, short of a server reusing ids): the SDK's
            // decoding, with its member order lost, is still the right content.
            do {
                return JSONValue(mcp: try MCP.Value(result))
            } catch {
                throw SDKException(.backendError, "The answer to \(what) cannot be read: \(error)")
            }
        case .answered(.failure(let error)):
            throw await failure(error, answer: answer, what: what, code: code)
        case .gone:
            try? await client.cancelRequest(request.id)
            throw await goneError(what)
        case .timedOut(let timeout):
            try? await client.cancelRequest(request.id, reason: "No answer within \(timeout)")
            throw SDKException(
                code,
                "The MCP server '\(name)' did not answer \(what) within \(Self.seconds(timeout))"
            )
        case .cancelled:
            try? await client.cancelRequest(request.id, reason: "Cancelled")
            throw SDKException(code, "\(what) was cancelled")
        }
    }

    /// Throws when the session is closed or the server gone.
    func checkOpen(_ what: String) async throws(SDKException) {
        if isClosed {
            throw closedError
        }
        if process.gone.isFired {
            throw await goneError(what)
        }
    }

    /// The error for a request that failed in the client or was refused by the server.
    func failure(_ error: any Error, answer: JSONValue?, what: String, code: SDKException.Code) async -> SDKException {
        if isClosed {
            return closedError
        }
        switch error as? MCPError {
        case .connectionClosed?, .transportError?:
            // A write fails on the dead socket a moment before the reader sees the output end.
            _ = await process.gone.wait(upTo: .seconds(2))
        default:
            break
        }
        if process.gone.isFired {
            return await goneError(what)
        }
        if let message = answer?["error"]?["message"]?.stringValue {
            return SDKException(code, "The MCP server '\(name)' refused \(what): \(message)")
        }
        let description = (error as? MCPError)?.errorDescription ?? "\(error)"
        return SDKException(code, "\(what) failed on the MCP server '\(name)': \(description)", underlying: error)
    }

    /// The error for a request the server cannot answer because it has gone.
    func goneError(_ what: String) async -> SDKException {
        let summary = await process.exitSummary()
        let recovery = isStarted ? "Start a new MCPToolSource" : "Check that the command starts an MCP server on stdio"
        return SDKException(.backendError, "\(what) failed: the MCP server '\(name)' \(summary)", recovery: recovery)
    }

    var closedError: SDKException {
        SDKException(.backendError, "The MCP session with '\(name)' is closed", recovery: "Start a new MCPToolSource")
    }

    /// `1.5 s` rather than Duration's `1.5 seconds`, as the rest of the SDK writes times.
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value == value.rounded() ? "\(Int64(value)) s" : "\(value) s"
    }
}
