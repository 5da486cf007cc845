import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A program run to its end, synchronously, with its output and error output captured.
///
/// Why not `Process`: on Linux it is full Foundation's, which maps libFoundation and ICU in
/// every process that links it. Why not swift-subprocess (1.0.2): its API is async only, and the
/// callers here are synchronous (a secure store's key lookup, the hardware profile) or must not
/// block the cooperative pool on a child for long; and it writes input to a pipe with `SIGPIPE`
/// at its default, so a child that exits without reading its input kills the host: measured,
/// `run(.path("/bin/true"), input: .array(1 MiB of bytes), output: .discarded)` ends the calling
/// process with status 141. A library cannot ignore `SIGPIPE` for the whole app. This runs
/// `posix_spawn` and one `poll` loop on the calling thread, input through a socket written
/// with `MSG_NOSIGNAL`.
///
/// Both streams are read as they come, so a child filling one pipe never blocks on it; past
/// ``outputLimit`` bytes a stream is still read, and dropped. A ``timeout`` (or a ``Stopper``)
/// sends `SIGTERM`, then `SIGKILL` after ``gracePeriod``; with ``ownProcessGroup`` the
/// signals reach the child's own children too. The child starts with every signal at its
/// default action and none blocked, whatever this process ignores or blocks.
///
/// ```swift
/// let outcome = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "cat"], input: .bytes(Array("hi".utf8)))
///     .run()
/// // outcome.termination == .exited(0), outcome.output == Array("hi".utf8)
/// ```
package struct ChildProcess: Sendable {
    /// What the child reads on its standard input.
    package enum Input: Sendable {
        /// `/dev/null`.
        case none
        /// These bytes, then the end of the input (through a socket: a child that exits
        /// without reading them cannot raise `SIGPIPE` here).
        case bytes([UInt8])
        /// A file, opened for reading in the child.
        case file(String)
    }

    /// How the child ended.
    package enum Termination: Sendable, Equatable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)

        package var description: String {
            switch self {
            case .exited(let status): "status \(status)"
            case .signaled(let signal): "signal \(signal)"
            }
        }
    }

    /// What a run gave.
    package struct Outcome: Sendable {
        /// How the child ended.
        package var termination: Termination
        /// The first ``ChildProcess/outputLimit`` bytes of its standard output.
        package var output: [UInt8]
        /// The first ``ChildProcess/outputLimit`` bytes of its standard error.
        package var errors: [UInt8]
        /// Whether the ``ChildProcess/timeout`` ran out (the child was then signalled).
        package var timedOut: Bool
        /// Whether a ``Stopper`` ended it.
        package var stopped: Bool

        /// Whether it exited with status 0.
        package var succeeded: Bool { termination == .exited(0) }
        /// The standard output as text, with surrounding white space removed.
        package var outputText: String { String(decoding: output, as: UTF8.self).trimmed() }
        /// The standard error as text, with surrounding white space removed.
        package var errorText: String { String(decoding: errors, as: UTF8.self).trimmed() }
    }

    /// Ends a run from another thread (a cancelled task, say): the child gets `SIGTERM`, then
    /// `SIGKILL` after the grace period. Stopping before the run starts ends the child as soon
    /// as it starts; stopping after it ended does nothing.
    package final class Stopper: Sendable {
        private struct State {
            var requested = false
            /// The write end of the running loop's wake-up pipe, -1 when no run is going on.
            var wake: Int32 = -1
        }

        private let state = Mutex(State())
        private let started: (@Sendable () -> Void)?

        /// A stopper; `started` is called once the child runs (on the running thread).
        package init(started: (@Sendable () -> Void)? = nil) {
            self.started = started
        }

        /// Asks the run to end its child.
        package func stop() {
            state.withLock { state in
                state.requested = true
                if state.wake >= 0 {
                    var byte: UInt8 = 1
                    _ = write(state.wake, &byte, 1)
                }
            }
        }

        var isRequested: Bool { state.withLock { $0.requested } }

        func attach(_ wake: Int32) {
            state.withLock { $0.wake = wake }
            started?()
        }

        func detach() {
            state.withLock { $0.wake = -1 }
        }
    }

    /// The program's path.
    package var executable: String
    /// Its arguments, without the program's name.
    package var arguments: [String]
    /// Its environment; `nil` passes this process's on.
    package var environment: [String: String]?
    /// Its standard input.
    package var input: Input
    /// The bytes kept of each output stream.
    package var outputLimit: Int
    /// How long it may run before it is signalled; `nil` for no limit.
    package var timeout: Duration?
    /// How long after `SIGTERM` the child (and, with ``ownProcessGroup``, its group) gets
    /// `SIGKILL`, and how long after that the output is still waited for.
    package var gracePeriod: Duration
    /// Whether the child leads a process group of its own, which the signals then reach.
    package var ownProcessGroup: Bool

    /// A run of `executable` with `arguments`; the other settings as their properties say.
    package init(
        executable: String,
        arguments: [String] = [],
        environment: [String: String]? = nil,
        input: Input = .none,
        outputLimit: Int = .max,
        timeout: Duration? = nil,
        gracePeriod: Duration = .seconds(2),
        ownProcessGroup: Bool = false
    ) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.input = input
        self.outputLimit = outputLimit
        self.timeout = timeout
        self.gracePeriod = gracePeriod
        self.ownProcessGroup = ownProcessGroup
    }

    /// Starts the program, feeds its input, reads its output until both streams end, and
    /// waits for it.
    ///
    /// - Throws: `POSIXError` when it cannot start (`ENOENT` for a program that is not there,
    ///   `EACCES` for one that cannot be run), or when its pipes cannot be made.
    package func run(stopper: Stopper? = nil) throws -> Outcome {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        throw POSIXError(.ENOTSUP)
        #else
        var pipes = Pipes()
        try pipes.open(input: input)
        let pid = try spawn(pipes)
        pipes.closeChildEnds()
        let target = ownProcessGroup ? -pid : pid
        stopper?.attach(pipes.wake[1])
        // The loop takes the descriptors over: it closes each stream at its end, and nobody
        // else holds their numbers to close them a second time.
        var loop = OutputLoop(pipes: pipes, limit: outputLimit, target: target, grace: gracePeriod)
        if case .bytes(let bytes) = input { loop.pendingInput = bytes }
        loop.run(deadline: timeout.map { ContinuousClock.now + $0 }, stopper: stopper)
        stopper?.detach()
        loop.pipes.closeAll()
        return Outcome(
            termination: Self.wait(for: pid),
            output: loop.output,
            errors: loop.errors,
            timedOut: loop.timedOut,
            stopped: loop.stopped
        )
        #endif
    }

    #if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS))
    /// The descriptors of a run: the child's three standard streams and the wake-up pipe.
    /// Every one is close-on-exec; the child's ends are copied to 0, 1 and 2 in the child.
    ///
    /// Not copyable: a copy would close the same numbers again, by then perhaps another
    /// thread's newly opened files. What is still open when it goes is closed.
    private struct Pipes: ~Copyable {
        var output: [Int32] = [-1, -1]
        var errors: [Int32] = [-1, -1]
        var wake: [Int32] = [-1, -1]
        /// The socket pair of `.bytes` input: [ours, the child's].
        var input: [Int32] = [-1, -1]

        mutating func open(input: Input) throws {
            for index in 0..<3 {
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { throw POSIXError(errno: errno) }
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                switch index {
                case 0: output = ends
                case 1: errors = ends
                default: wake = ends
                }
            }
            _ = fcntl(wake[1], F_SETFL, fcntl(wake[1], F_GETFL) | O_NONBLOCK)
            guard case .bytes = input else { return }
            #if os(Linux)
            let type = Int32(SOCK_STREAM.rawValue)
            #else
            let type = SOCK_STREAM
            #endif
            guard socketpair(AF_UNIX, type, 0, &self.input) == 0 else { throw POSIXError(errno: errno) }
            for end in self.input { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            _ = fcntl(self.input[0], F_SETFL, fcntl(self.input[0], F_GETFL) | O_NONBLOCK)
            #if canImport(Darwin)
            var one: Int32 = 1
            setsockopt(self.input[0], SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
        }

        mutating func closeChildEnds() {
            Self.close(&output[1])
            Self.close(&errors[1])
            Self.close(&input[1])
        }

        mutating func closeAll() {
            for index in 0..<2 {
                Self.close(&output[index])
                Self.close(&errors[index])
                Self.close(&wake[index])
                Self.close(&input[index])
            }
        }

        deinit {
            for descriptor in output + errors + wake + input where descriptor >= 0 {
                Self.closeDescriptor(descriptor)
            }
        }

        static func close(_ descriptor: inout Int32) {
            guard descriptor >= 0 else { return }
            closeDescriptor(descriptor)
            descriptor = -1
        }

        private static func closeDescriptor(_ descriptor: Int32) {
            #if canImport(Glibc)
            _ = Glibc.close(descriptor)
            #elseif canImport(Musl)
            _ = Musl.close(descriptor)
            #elseif canImport(Darwin)
            _ = Darwin.close(descriptor)
            #endif
        }
    }

    /// Reads both output streams, writes `.bytes` input, and signals the child when the
    /// deadline passes or a stopper asks.
    private struct OutputLoop: ~Copyable {
        var pipes: Pipes
        let limit: Int
        let target: pid_t
        let grace: Duration
        var pendingInput: [UInt8] = []
        var inputOffset = 0
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var timedOut = false
        var stopped = false
        /// When `SIGKILL` is due, after a `SIGTERM`.
        var killAt: ContinuousClock.Instant?
        /// When to stop waiting for the streams to end, after a `SIGKILL`: a grandchild outside
        /// the child's group may hold them open.
        var abandonAt: ContinuousClock.Instant?

        init(pipes: consuming Pipes, limit: Int, target: pid_t, grace: Duration) {
            self.pipes = pipes
            self.limit = limit
            self.target = target
            self.grace = grace
        }

        mutating func run(deadline: ContinuousClock.Instant?, stopper: Stopper?) {
            if pipes.input[0] >= 0, pendingInput.isEmpty { shutdownInput() }
            if stopper?.isRequested == true { terminate(stopping: true) }
            while pipes.output[0] >= 0 || pipes.errors[0] >= 0 {
                let now = ContinuousClock.now
                if let deadline, now >= deadline, killAt == nil, abandonAt == nil {
                    timedOut = true
                    terminate(stopping: false)
                }
                if let killAt, now >= killAt {
                    _ = kill(target, SIGKILL)
                    self.killAt = nil
                    abandonAt = now + grace
                }
                if let abandonAt, now >= abandonAt { return }
                let next = [killAt == nil && abandonAt == nil ? deadline : nil, killAt, abandonAt].compactMap { $0 }
                    .min()
                let waitMilliseconds = next.map { Int32(clamping: Int(max(0, ($0 - now).milliseconds.rounded(.up)))) }
                var descriptors = [
                    pollfd(fd: pipes.output[0], events: Int16(POLLIN), revents: 0),
                    pollfd(fd: pipes.errors[0], events: Int16(POLLIN), revents: 0),
                    pollfd(fd: pipes.wake[0], events: Int16(POLLIN), revents: 0),
                    pollfd(fd: pipes.input[0], events: Int16(POLLOUT), revents: 0),
                ]
                let ready = poll(&descriptors, nfds_t(descriptors.count), waitMilliseconds ?? -1)
                if ready < 0, errno == EINTR { continue }
                guard ready > 0 else { continue }
                if descriptors[0].revents != 0 { Self.drain(&pipes.output[0], into: &output, limit: limit) }
                if descriptors[1].revents != 0 { Self.drain(&pipes.errors[0], into: &errors, limit: limit) }
                if descriptors[2].revents != 0 {
                    var bytes = [UInt8](repeating: 0, count: 64)
                    _ = read(pipes.wake[0], &bytes, bytes.count)
                    if stopper?.isRequested == true, killAt == nil, abandonAt == nil { terminate(stopping: true) }
                }
                if descriptors[3].revents != 0 { writeInput(closing: descriptors[3].revents & Int16(POLLOUT) == 0) }
            }
        }

        /// `SIGTERM` now, `SIGKILL` after the grace period.
        mutating func terminate(stopping: Bool) {
            if stopping { stopped = true }
            _ = kill(target, SIGTERM)
            killAt = ContinuousClock.now + grace
        }

        /// Reads what a stream has, keeping up to `limit` bytes in all; at its end (or on an
        /// error) closes it.
        static func drain(_ descriptor: inout Int32, into kept: inout [UInt8], limit: Int) {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { return }
            guard count > 0 else {
                Pipes.close(&descriptor)
                return
            }
            let room = max(0, limit - kept.count)
            kept.append(contentsOf: chunk.prefix(min(room, count)))
        }

        /// Sends what it can of the input; after the last byte, or when the child is gone,
        /// ends it.
        mutating func writeInput(closing: Bool) {
            guard !closing, inputOffset < pendingInput.count else {
                shutdownInput()
                return
            }
            #if os(Linux)
            let flags = Int32(MSG_NOSIGNAL)
            #else
            let flags: Int32 = 0
            #endif
            let sent = pendingInput.withUnsafeBytes { bytes in
                send(pipes.input[0], bytes.baseAddress! + inputOffset, bytes.count - inputOffset, flags)
            }
            if sent > 0 { inputOffset += sent }
            if sent < 0, errno != EINTR, errno != EAGAIN { inputOffset = pendingInput.count }
            if inputOffset >= pendingInput.count { shutdownInput() }
        }

        mutating func shutdownInput() {
            _ = shutdown(pipes.input[0], Int32(SHUT_WR))
            Pipes.close(&pipes.input[0])
        }
    }

    /// Starts the child with its standard streams on the pipes' child ends.
    private func spawn(_ pipes: borrowing Pipes) throws -> pid_t {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        switch input {
        case .none: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .file(let path): posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
        case .bytes: posix_spawn_file_actions_adddup2(&actions, pipes.input[1], 0)
        }
        posix_spawn_file_actions_adddup2(&actions, pipes.output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipes.errors[1], 2)
        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var flags = Int32(POSIX_SPAWN_SETSIGDEF) | Int32(POSIX_SPAWN_SETSIGMASK)
        if ownProcessGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } }
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp ?? [] { free(pointer) }
        }
        var pid: pid_t = 0
        let result = (argv + [nil]).withUnsafeBufferPointer { arguments in
            if let envp {
                return (envp + [nil]).withUnsafeBufferPointer { environment in
                    posix_spawn(
                        &pid,
                        executable,
                        &actions,
                        &attributes,
                        arguments.baseAddress!,
                        environment.baseAddress!
                    )
                }
            }
            return posix_spawn(
                &pid,
                executable,
                &actions,
                &attributes,
                arguments.baseAddress!,
                Self.inheritedEnvironment
            )
        }
        guard result == 0 else { throw POSIXError(errno: result) }
        return pid
    }

    /// Reaps the child.
    /// This process's environment, for a child that inherits it. Apple's C library does not
    /// export `environ` to programs linked as frameworks; `_NSGetEnviron` is its way.
    private static var inheritedEnvironment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        #if canImport(Darwin)
        _NSGetEnviron().pointee
        #else
        environ
        #endif
    }

    private static func wait(for pid: pid_t) -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return .exited(-1) }
        }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }
    #endif
}
