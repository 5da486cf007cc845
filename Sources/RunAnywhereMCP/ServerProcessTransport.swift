import Foundation
import Logging
import MCP

/// The MCP SDK's transport over a ``ServerProcess``'s stdio: one JSON-RPC message a line.
///
/// The SDK's own `StdioTransport` takes the descriptors but writes with plain `write`, which
/// raises `SIGPIPE` and kills the host when the server has died, and while idle it polls a
/// non-blocking descriptor every 10 ms; this one sends with `MSG_NOSIGNAL` and reads on a
/// blocking thread.
actor ServerProcessTransport: Transport {
    /// The SDK logs through the transport's logger; its warnings (a late answer to a
    /// cancelled call, say) are expected here, so they go nowhere.
    nonisolated let logger = Logger(label: "ai.runanywhere.mcp", factory: { _ in SwiftLogNoOpLogHandler() })
    private let process: ServerProcess

    init(process: ServerProcess) {
        self.process = process
    }

    /// Nothing to do: the process's stdout is read from the moment it starts.
    func connect() async throws {}

    /// Closes the server's stdin, which asks it to exit.
    func disconnect() async {
        process.closeInput()
    }

    /// Writes `data` and a newline.
    func send(_ data: Data) async throws {
        var line = data
        line.append(UInt8(ascii: "\n"))
        guard await process.write(line) else {
            throw MCPError.connectionClosed
        }
    }

    /// The server's stdout lines.
    func receive() -> AsyncThrowingStream<Data, any Error> {
        process.lines
    }
}
