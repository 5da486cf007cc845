import Dispatch
import Foundation
import RunAnywhere
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a server process ended.
enum ServerTermination: Sendable, Equatable, CustomStringConvertible {
    /// It exited with this status.
    case exited(Int32)
    /// A signal ended it.
    case signaled(Int32)
    /// Someone else reaped it (a host that ignores SIGCHLD does), so the status is lost.
    case unknown

    var description: String {
        switch self {
        case .exited(let status): "status \(status)"
        case .signaled(let signal): "signal \(signal)"
        case .unknown: "status unknown"
        }
    }
}

/// Why a server's stdout stream ended.
struct ServerOutputClosed: Error, CustomStringConvertible {
    var description: String
}

/// A server started with stdin, stdout and stderr on Unix socket pairs, reaped by a thread of its own.
///
/// Socket pairs rather than pipes (libuv gives Node's children the same): a socket can be
/// written with `MSG_NOSIGNAL`, so writing to a server that died fails with `EPIPE` instead of
/// raising `SIGPIPE`, which would kill the host; and `shutdown` wakes a thread blocked reading
/// one, so ``terminate(grace:)`` can stop the readers even when a process the server started
/// still holds the other end. The server leads a process group of its own so that the signals
/// reach whatever it started too (`npx` and `uvx` wrap the real server in a child).
///
/// Why not swift-subprocess (1.0.2): its `Execution`, the only handle that can signal the
/// server, is valid only inside the body closure, and the exit status comes only after the body
/// returns, once the package has reaped the process. The MCP shutdown (close stdin, wait,
/// `SIGTERM`, wait, `SIGKILL`, each step only while the server runs) must both know of the exit
/// and still be able to signal a server whose stdout has closed, without racing a reaper for a
/// reused pid: here `waitid(WNOWAIT)` and the signals share one lock. Its input writer also
/// reports a write to a server that has exited as 0 bytes written, not as an error (measured:
/// ten 64 KiB writes to an exited `/bin/true` each returned 0).
final class ServerProcess: Sendable {
    /// The server's process id.
    let pid: pid_t
    /// The lines the server writes to stdout, without their newline. The stream ends with an
    /// error, never normally: the MCP client's read loop spins on a stream that just finishes.
    let lines: AsyncThrowingStream<Data, any Error>
    /// Fired when the server exits or closes its stdout, whichever comes first.
    let gone = Latch()
    /// Fired once the server has exited and been reaped.
    let exited = Latch()
    private let errorOutputEnded = Latch()

    private let input: Int32
    private let output: Int32
    private let errorOutput: Int32
    private let lineSink: AsyncThrowingStream<Data, any Error>.Continuation
    private let writer = DispatchQueue(label: "ai.runanywhere.mcp.server-stdin")

    private struct State {
        var termination: ServerTermination?
        var inputShut = false
        var inputClosed = false
        var outputClosed = false
        var errorOutputClosed = false
        var errorTail: [UInt8] = []
    }

    /// Descriptors are closed under this lock and only shut down while it shows them open,
    /// so a shutdown never reaches a descriptor number the host has since reused.
    private let state = Mutex(State())

    private static let errorTailLimit = 4096
    private static let lineLimit = 64 << 20

    private init(pid: pid_t, input: Int32, output: Int32, errorOutput: Int32) {
        self.pid = pid
        self.input = input
        self.output = output
        self.errorOutput = errorOutput
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        lines = stream
        lineSink = continuation
    }

    deinit {
        // Every thread and queued write holds the object, so nothing uses the descriptor now.
        if !state.withLock({ $0.inputClosed }) {
            _ = close(input)
        }
    }

    /// Starts `executable` with `arguments` (the first is the process's name) and exactly
    /// `environment`.
    ///
    /// - Parameter onLine: Sees each stdout line before ``lines`` yields it.
    /// - Throws: `.backendError` when the process cannot be started.
    static func spawn(
        executable: String,
        arguments: [String],
        environment: [String: String],
        onLine: @escaping @Sendable (Data) -> Void
    ) throws(SDKException) -> ServerProcess {
        var descriptors: [Int32] = []
        func closeAll() {
            for descriptor in descriptors {
                _ = close(descriptor)
            }
        }
        for _ in 0..<3 {
            guard let pair = socketPair() else {
                let reason = String(cString: strerror(errno))
                closeAll()
                throw SDKException(.backendError, "Could not create the stdio of '\(executable)': \(reason)")
            }
            descriptors += [pair.ours, pair.theirs]
        }
        let spawned = launch(
            executable,
            arguments: arguments,
            environment: environment,
            stdio: [descriptors[1], descriptors[3], descriptors[5]]
        )
        for theirs in [descriptors[1], descriptors[3], descriptors[5]] {
            _ = close(theirs)
        }
        guard case .success(let pid) = spawned else {
            for ours in [descriptors[0], descriptors[2], descriptors[4]] {
                _ = close(ours)
            }
            if case .failure(let failure) = spawned {
                throw SDKException(
                    .backendError,
                    "Could not start '\(executable)': \(String(cString: strerror(failure.code)))"
                )
            }
            throw SDKException(.backendError, "Could not start '\(executable)'")
        }
        let process = ServerProcess(
            pid: pid,
            input: descriptors[0],
            output: descriptors[2],
            errorOutput: descriptors[4]
        )
        process.startThreads(onLine: onLine)
        return process
    }

    /// How the server ended, once it has.
    var termination: ServerTermination? {
        state.withLock { $0.termination }
    }

    /// The last few kilobytes the server wrote to stderr, trimmed.
    var errorTail: String {
        let bytes = state.withLock { $0.errorTail }
        return String(decoding: bytes, as: UTF8.self).trimmed()
    }

    /// A phrase for error messages: how the server ended, and the end of its stderr.
    func exitSummary() async -> String {
        if termination == nil {
            // Stdout can close a moment before the exit is reaped; the status is worth a short wait.
            _ = await exited.wait(upTo: .seconds(2))
        }
        var summary = termination.map { "exited (\($0))" } ?? "closed its output"
        if termination != nil {
            _ = await errorOutputEnded.wait(upTo: .seconds(1))
        }
        let tail = errorTail
        if !tail.isEmpty {
            summary += "; its last error output: \(tail.suffix(600))"
        }
        return summary
    }

    /// Writes one message; returns false once stdin is closed or the server has gone.
    func write(_ message: Data) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            writer.async {
                continuation.resume(returning: self.writeAll(message))
            }
        }
    }

    /// Closes the server's stdin, which tells an MCP server to exit.
    func closeInput() {
        let first = state.withLock { state -> Bool in
            guard !state.inputShut else { return false }
            state.inputShut = true
            // Wakes a write blocked on a full buffer; the close waits behind it on the queue.
            _ = shutdown(input, Int32(SHUT_WR))
            return true
        }
        guard first else { return }
        writer.async {
            self.state.withLock { state in
                state.inputClosed = true
                _ = close(self.input)
            }
        }
    }

    /// Ends the server as the MCP stdio transport asks: stdin closed, then `SIGTERM`, then
    /// `SIGKILL`, each after `grace`; returns once it is reaped (or, for a process stuck in
    /// the kernel, after a bounded wait).
    func terminate(grace: Duration) async {
        closeInput()
        if await !exited.wait(upTo: grace) {
            signal(SIGTERM)
            if await !exited.wait(upTo: grace) {
                signal(SIGKILL)
                _ = await exited.wait(upTo: .seconds(10))
            }
        }
        // A process the server started may still hold the other ends of stdout and stderr.
        state.withLock { state in
            if !state.outputClosed {
                _ = shutdown(output, Int32(SHUT_RDWR))
            }
            if !state.errorOutputClosed {
                _ = shutdown(errorOutput, Int32(SHUT_RDWR))
            }
        }
    }

    /// Sends `signal` to the server's process group and the server, unless it is reaped.
    func signal(_ signal: Int32) {
        state.withLock { state in
            // Until the reaper's waitpid, which runs under this lock, the pid cannot be reused.
            guard state.termination == nil else { return }
            _ = kill(-pid, signal)
            _ = kill(pid, signal)
        }
    }

    // MARK: Threads

    private func startThreads(onLine: @escaping @Sendable (Data) -> Void) {
        let reaper = Thread { self.reap() }
        reaper.name = "mcp-server-reaper"
        reaper.start()
        let reader = Thread { self.readLines(onLine: onLine) }
        reader.name = "mcp-server-stdout"
        reader.start()
        let errorReader = Thread { self.readErrorOutput() }
        errorReader.name = "mcp-server-stderr"
        errorReader.start()
    }

    private func reap() {
        // Waits without reaping, so that the pid stays the server's until the lock is held.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1, errno == EINTR {}
        state.withLock { state in
            var status: Int32 = 0
            var reaped: pid_t
            repeat {
                reaped = waitpid(pid, &status, 0)
            } while reaped == -1 && errno == EINTR
            state.termination = reaped == pid ? Self.termination(fromWaitStatus: status) : .unknown
        }
        exited.fire()
        gone.fire()
    }

    private func readLines(onLine: @Sendable (Data) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var pending: [UInt8] = []
        var ending = "The MCP server closed its output"
        reading: while true {
            let count = buffer.withUnsafeMutableBytes { recv(output, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR {
                continue
            }
            guard count > 0 else { break }
            var start = 0
            for index in 0..<count where buffer[index] == UInt8(ascii: "\n") {
                pending += buffer[start..<index]
                start = index + 1
                if pending.last == UInt8(ascii: "\r") {
                    pending.removeLast()
                }
                if !pending.isEmpty {
                    let line = Data(pending)
                    onLine(line)
                    lineSink.yield(line)
                }
                pending.removeAll(keepingCapacity: true)
            }
            pending += buffer[start..<count]
            if pending.count > Self.lineLimit {
                ending = "The MCP server wrote more than \(Self.lineLimit >> 20) MiB without a newline"
                break reading
            }
        }
        state.withLock { state in
            state.outputClosed = true
            _ = close(output)
        }
        lineSink.finish(throwing: ServerOutputClosed(description: ending))
        gone.fire()
    }

    private func readErrorOutput() {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(errorOutput, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR {
                continue
            }
            guard count > 0 else { break }
            state.withLock { state in
                state.errorTail += buffer[0..<count]
                if state.errorTail.count > Self.errorTailLimit {
                    state.errorTail.removeFirst(state.errorTail.count - Self.errorTailLimit)
                }
            }
        }
        state.withLock { state in
            state.errorOutputClosed = true
            _ = close(errorOutput)
        }
        errorOutputEnded.fire()
    }

    private func writeAll(_ message: Data) -> Bool {
        guard !state.withLock({ $0.inputShut }) else { return false }
        return message.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let written = send(input, bytes.baseAddress! + offset, bytes.count - offset, Self.sendFlags)
                if written < 0 {
                    guard errno == EINTR else { return false }
                    continue
                }
                offset += written
            }
            return true
        }
    }

    // MARK: System calls

    private static func termination(fromWaitStatus status: Int32) -> ServerTermination {
        // WIFEXITED and friends are macros Swift cannot import; this is their definition.
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }

    #if os(Linux)
    private static let sendFlags = Int32(MSG_NOSIGNAL)

    private static func socketPair() -> (ours: Int32, theirs: Int32)? {
        var descriptors: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &descriptors) == 0 else { return nil }
        return (descriptors[0], descriptors[1])
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32

    /// glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module
    /// does not declare: without it a descriptor some library opened without `O_CLOEXEC`
    /// would leak into the server.
    private static func addCloseFrom(_ actions: inout posix_spawn_file_actions_t, lowest: Int32) {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, lowest)
    }
    #else
    private static let sendFlags: Int32 = 0

    private static func socketPair() -> (ours: Int32, theirs: Int32)? {
        var descriptors: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, SOCK_STREAM, 0, &descriptors) == 0 else { return nil }
        var on: Int32 = 1
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        return (descriptors[0], descriptors[1])
    }
    #endif

    private static func launch(
        _ executable: String,
        arguments: [String],
        environment: [String: String],
        stdio: [Int32]
    ) -> Result<pid_t, SpawnFailure> {
        #if os(Linux) || os(macOS)
        #if os(Linux)
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #else
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, descriptor) in stdio.enumerated() {
            posix_spawn_file_actions_adddup2(&actions, descriptor, Int32(target))
        }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var flags = Int32(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        #if os(Linux)
        addCloseFrom(&actions, lowest: 3)
        #else
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))
        posix_spawnattr_setpgroup(&attributes, 0)
        // The host's threads may block signals, or ignore SIGPIPE; the server starts clean.
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp {
                free(pointer)
            }
        }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        return result == 0 ? .success(pid) : .failure(SpawnFailure(code: result))
        #else
        // iOS and its siblings cannot start processes.
        return .failure(SpawnFailure(code: ENOTSUP))
        #endif
    }
}

/// `posix_spawn`'s error number.
private struct SpawnFailure: Error {
    var code: Int32
}
