import Hummingbird
import Logging
import ServiceLifecycle

/// A Hummingbird application serving in a task of its own, once its port is bound: what the
/// OpenAI-compatible server, the control plane and the test file server share.
package struct HTTPServerRun: Sendable {
    /// The port it listens on (the one picked, when 0 was asked for).
    package let port: Int
    private let task: Task<Void, any Error>
    private let group: ServiceGroup

    /// Serves `responder` on `host:port`; `nil` when the address cannot be bound.
    package static func start<Responder: HTTPResponder>(
        _ responder: Responder,
        host: String,
        port: Int,
        logger: Logger
    ) async -> HTTPServerRun? where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            responder: responder,
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger
        )
        let group = ServiceGroup(services: [app], logger: logger)
        let task = Task {
            defer { portContinuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next(), bound > 0 else {
            task.cancel()
            _ = try? await task.value
            return nil
        }
        return HTTPServerRun(port: bound, task: task, group: group)
    }

    /// Stops accepting connections, lets requests in progress finish for up to
    /// `gracePeriod`, then cancels the rest.
    package func stop(gracePeriod: Duration) async {
        await group.triggerGracefulShutdown()
        let task = self.task
        let deadline = Task {
            try await Task.sleep(for: gracePeriod)
            task.cancel()
        }
        _ = try? await task.value
        deadline.cancel()
    }

    /// Stops at once: connections are closed mid-request.
    package func cancel() async {
        task.cancel()
        _ = try? await task.value
    }
}
