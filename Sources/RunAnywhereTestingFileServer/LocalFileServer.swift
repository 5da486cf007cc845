import Foundation
import Hummingbird
import Logging
import NIOCore
import RunAnywhereHTTPServing
import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1 that serves the files of one folder, with byte
/// ranges, `ETag`/`If-Range`, and faults injected per file.
///
/// The files are Hummingbird's `FileMiddleware`'s; a fault middleware in front of it asks
/// for headers, answers injected statuses, paces or cuts bodies, and records every request.
///
/// The download tests and `runanywhere bench download` use it: no model hub is reachable
/// from CI, and faults (a dropped connection, a 500, a slow link) must be reproducible.
///
/// ```swift
/// let server = try await LocalFileServer.start(root: folder)
/// server.setFault(FaultPlan(failures: [500, 500]), for: "model.gguf")
/// let url = server.url(for: "model.gguf")
/// // …
/// await server.stop()
/// ```
public final class LocalFileServer: Sendable {
    /// The folder served.
    public let root: URL
    /// The port the server listens on.
    public let port: Int
    private let run: HTTPServerRun
    private let shared: Shared

    /// What the server and its handler share: the faults to inject and the request log.
    final class Shared: Sendable {
        let state = Mutex(State())
    }

    struct State {
        var faults: [String: FaultPlan] = [:]
        var requiredHeaders: [String: String] = [:]
        var requests: [RequestRecord] = []
    }

    private init(root: URL, run: HTTPServerRun, shared: Shared) {
        self.root = root
        self.port = run.port
        self.run = run
        self.shared = shared
    }

    /// Starts serving `root` on a free port of 127.0.0.1 (or on `port`).
    public static func start(root: URL, port: Int = 0) async throws -> LocalFileServer {
        let root = root.standardizedFileURL
        let shared = Shared()
        // Closing connections on stop is logged as an error by the server core; it is expected here.
        var logger = Logger(label: "LocalFileServer")
        logger.logLevel = .critical
        let router = Router()
        router.add(middleware: FaultMiddleware(root: root, shared: shared))
        router.add(middleware: FileMiddleware(root.path, searchForIndexHtml: false, logger: logger))
        guard
            let run = await HTTPServerRun.start(router.buildResponder(), host: "127.0.0.1", port: port, logger: logger)
        else {
            throw FileServerError.couldNotStart
        }
        return LocalFileServer(root: root, run: run, shared: shared)
    }

    /// Stops listening and closes open connections.
    public func stop() async {
        await run.cancel()
    }

    /// The server's address.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// The address of a file under ``root``.
    public func url(for path: String) -> URL {
        baseURL.appendingPathComponent(path)
    }

    /// Answers 401 to every request without header `name` set to `value` (an app's
    /// authenticated model server); `nil` stops asking for it.
    public func requireHeader(_ name: String, value: String?) {
        shared.state.withLock { $0.requiredHeaders[name.lowercased()] = value }
    }

    /// Injects faults into the responses for `path` (relative to ``root``); `nil` clears them.
    public func setFault(_ plan: FaultPlan?, for path: String) {
        shared.state.withLock { $0.faults[path] = plan }
    }

    /// Every request answered so far, oldest first.
    public var requests: [RequestRecord] { shared.state.withLock { $0.requests } }

    /// The requests answered so far for one path.
    public func requests(for path: String) -> [RequestRecord] {
        requests.filter { $0.path == path }
    }
}

/// Faults to inject into the responses for one file.
public struct FaultPlan: Sendable, Equatable {
    /// Statuses to answer the next GET requests with instead of the file, one per request.
    public var failures: [Int]
    /// Close the connection once this many body bytes of a GET were sent (once).
    public var dropAfterBytes: Int64?
    /// Send the body no faster than this.
    public var bytesPerSecond: Int?
    /// Answer range requests with the whole file, as some servers do.
    public var ignoreRanges: Bool

    /// Creates a plan; the defaults inject nothing.
    public init(
        failures: [Int] = [],
        dropAfterBytes: Int64? = nil,
        bytesPerSecond: Int? = nil,
        ignoreRanges: Bool = false
    ) {
        self.failures = failures
        self.dropAfterBytes = dropAfterBytes
        self.bytesPerSecond = bytesPerSecond
        self.ignoreRanges = ignoreRanges
    }
}

/// One request the server answered.
public struct RequestRecord: Sendable, Equatable {
    /// `GET` or `HEAD`.
    public let method: String
    /// The path relative to the root, without the leading `/`.
    public let path: String
    /// The `Range` header, if any.
    public let range: String?
    /// The status answered.
    public let status: Int
    /// Body bytes the response was to carry.
    public let bodyBytes: Int64
}

/// Why the server could not do what was asked.
public enum FileServerError: Error {
    /// The server could not bind its address.
    case couldNotStart
    /// A response was cut off, as a ``FaultPlan`` asked.
    case droppedOnPurpose
}

/// Stands in front of `FileMiddleware`: asks for the required headers, answers the injected
/// statuses, normalizes ranges, paces and cuts bodies as the file's ``FaultPlan`` says, and
/// records every request with the status and body length it got.
struct FaultMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    let root: URL
    let shared: LocalFileServer.Shared

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = String(request.uri.path.drop(while: { $0 == "/" })).removingPercentEncoding ?? ""
        let isHead = request.method == .head
        let rangeHeader = request.headers[.range]
        func record(_ status: Int, _ bytes: Int64) {
            let method = isHead ? "HEAD" : "GET"
            let entry = RequestRecord(method: method, path: path, range: rangeHeader, status: status, bodyBytes: bytes)
            shared.state.withLock { $0.requests.append(entry) }
        }

        let required = shared.state.withLock { $0.requiredHeaders }
        for (name, value) in required {
            guard request.headers.contains(where: { $0.name.canonicalName == name && $0.value == value }) else {
                record(401, 0)
                return Response(status: .unauthorized, headers: [.contentLength: "0"])
            }
        }

        // A fault answers GETs only, so a preflight HEAD sees the real file.
        var plan = FaultPlan()
        if !isHead {
            let injected = shared.state.withLock { state -> (status: Int?, plan: FaultPlan) in
                guard var plan = state.faults[path] else { return (nil, FaultPlan()) }
                if !plan.failures.isEmpty {
                    let status = plan.failures.removeFirst()
                    state.faults[path] = plan
                    return (status, plan)
                }
                // The drop happens once; the retry then gets a healthy connection.
                var next = plan
                next.dropAfterBytes = nil
                state.faults[path] = next
                return (nil, plan)
            }
            if let status = injected.status {
                record(status, 0)
                return Response(status: .init(code: status), headers: [.contentLength: "0"])
            }
            plan = injected.plan
        }

        var head = request.head
        if plan.ignoreRanges {
            head.headerFields[.range] = nil
            head.headerFields[.ifRange] = nil
        } else if let rangeHeader, request.headers[.ifRange] == nil, let size = fileSize(path) {
            // FileMiddleware reads `bytes=-N` as the first N + 1 bytes and serves a start past
            // the end as a negative length: it gets the range as two offsets within the file.
            guard let (first, last) = Self.parseRange(rangeHeader, size: size) else {
                record(416, 0)
                return Response(
                    status: .rangeNotSatisfiable,
                    headers: [.contentRange: "bytes */\(size)", .contentLength: "0"]
                )
            }
            head.headerFields[.range] = "bytes=\(first)-\(last)"
        }

        let response: Response
        do {
            response = try await next(Request(head: head, body: request.body), context)
        } catch let error as any HTTPResponseError {
            record(Int(error.status.code), 0)
            throw error
        }
        let length = isHead ? 0 : response.headers[.contentLength].flatMap { Int64($0) } ?? 0
        record(Int(response.status.code), length)
        guard !isHead, plan.dropAfterBytes != nil || plan.bytesPerSecond != nil else { return response }
        var faulty = response
        let body = response.body
        let faults = plan
        faulty.body = ResponseBody(contentLength: body.contentLength) { writer in
            try await body.write(FaultyBodyWriter(base: writer, plan: faults))
        }
        return faulty
    }

    /// The size of the file at `path` under the root, if it is a regular file there.
    private func fileSize(_ path: String) -> Int64? {
        let file = root.appendingPathComponent(path).standardizedFileURL
        guard file.path.hasPrefix(root.path + "/"),
            let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
            attributes[.type] as? FileAttributeType == .typeRegular
        else { return nil }
        return (attributes[.size] as? NSNumber)?.int64Value
    }

    /// `bytes=N-`, `bytes=N-M` or `bytes=-N`, clamped to the file; `nil` when unsatisfiable.
    static func parseRange(_ header: String, size: Int64) -> (Int64, Int64)? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst("bytes=".count)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = Int64(parts[1]), suffix > 0 else { return nil }
            return (max(0, size - suffix), size - 1)
        }
        guard let first = Int64(parts[0]), first < size else { return nil }
        let last = parts[1].isEmpty ? size - 1 : min(Int64(parts[1]) ?? -1, size - 1)
        guard last >= first else { return nil }
        return (first, last)
    }
}

/// Writes a body as a ``FaultPlan`` says: no faster than its rate, and cut off (the connection
/// closed) after its number of bytes.
struct FaultyBodyWriter: ResponseBodyWriter {
    var base: any ResponseBodyWriter
    let plan: FaultPlan
    private var sent: Int64 = 0
    private let began = ContinuousClock.now

    init(base: any ResponseBodyWriter, plan: FaultPlan) {
        self.base = base
        self.plan = plan
    }

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        repeat {
            // Paced in twentieths of a second's worth, so a slow link looks slow from the start.
            var count = buffer.readableBytes
            if let rate = plan.bytesPerSecond { count = min(count, max(1, rate / 20)) }
            if let drop = plan.dropAfterBytes { count = min(count, Int(max(0, drop - sent))) }
            if count > 0, let slice = buffer.readSlice(length: count) {
                try await base.write(slice)
                sent += Int64(count)
            }
            if let drop = plan.dropAfterBytes, sent >= drop { throw FileServerError.droppedOnPurpose }
            if let rate = plan.bytesPerSecond {
                let due = Duration.seconds(Double(sent) / Double(rate))
                let elapsed = began.duration(to: .now)
                if due > elapsed { try await Task.sleep(for: due - elapsed) }
            }
        } while buffer.readableBytes > 0
    }

    mutating func write(contentsOf buffers: some Sequence<ByteBuffer>) async throws {
        for buffer in buffers { try await write(buffer) }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await base.finish(trailingHeaders)
    }
}
