import Dispatch
// Process, Pipe and FileHandle: full Foundation's (swift-subprocess is async-only; next step).
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a ``CommandTool``'s program for one call: the arguments as JSON on its standard
/// input, its standard output as the result (JSON when it parses, else text). A non-zero
/// exit, a timeout or a program that cannot start is a tool error the model sees.
struct CommandToolExecutor: Sendable {
    let tool: CommandTool

    /// The most output read from the program; more is cut (a tool answer is for a prompt).
    static let maximumOutputBytes = 64 * 1024

    @Sendable func run(_ arguments: JSONValue) async throws -> JSONValue {
        #if os(iOS) || os(tvOS) || os(watchOS)
        throw SDKException(.toolExecutionFailed, "Command tools cannot run on this platform")
        #else
        let tool = self.tool
        let process = Process()
        let launched = AtomicFlag()
        let cancelled = AtomicFlag()
        return try await withTaskCancellationHandler {
            try await Task.detached { () throws -> JSONValue in
                try Self.execute(tool, arguments: arguments, process: process, launched: launched) {
                    // Cancelled before the launch: the cancel handler could not reach it.
                    if cancelled.isSet { Self.stop(process) }
                }
            }.value
        } onCancel: {
            cancelled.set()
            if launched.isSet { Self.stop(process) }
        }
        #endif
    }

    #if !(os(iOS) || os(tvOS) || os(watchOS))
    private static func execute(
        _ tool: CommandTool,
        arguments: JSONValue,
        process: Process,
        launched: AtomicFlag,
        afterLaunch: () -> Void
    ) throws -> JSONValue {
        let program = tool.command[0]
        if program.contains("/") {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = Array(tool.command.dropFirst())
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = tool.command
        }
        // The arguments reach the program as a file on its standard input, not a pipe: a
        // program that never reads them cannot block us or make a write raise SIGPIPE.
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("ra-tool-\(UUID().uuidString).json")
        // 0600: the arguments may carry what the user said.
        guard
            FileManager.default.createFile(
                atPath: input.path,
                contents: Data(arguments.jsonText().utf8),
                attributes: [.posixPermissions: 0o600]
            )
        else {
            throw SDKException(.toolExecutionFailed, "Cannot hand the arguments to \(tool.definition.name)")
        }
        defer { try? FileManager.default.removeItem(at: input) }
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = try? FileHandle(forReadingFrom: input)
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw SDKException(
                .toolExecutionFailed,
                "The tool \(tool.definition.name) could not start \(program): \(error)"
            )
        }
        launched.set()
        afterLaunch()
        let stopped = AtomicFlag()
        let timer = DispatchWorkItem { Self.stop(process, flag: stopped) }
        DispatchQueue.global().asyncAfter(deadline: .now() + tool.timeoutSeconds, execute: timer)
        defer { timer.cancel() }
        let stderrData = Mutex(Data())
        let drained = DispatchGroup()
        DispatchQueue.global().async(group: drained) {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            stderrData.withLock { $0 = data }
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        drained.wait()
        if process.terminationReason == .uncaughtSignal || stopped.isSet {
            throw SDKException(
                .toolExecutionFailed,
                "The tool \(tool.definition.name) was stopped (timeout \(tool.timeoutSeconds) s or cancelled)"
            )
        }
        let text = String(decoding: data.prefix(maximumOutputBytes), as: UTF8.self)
            .trimmed()
        guard process.terminationStatus == 0 else {
            let detail = String(decoding: stderrData.withLock { $0 }.prefix(2000), as: UTF8.self)
            throw SDKException(
                .toolExecutionFailed,
                "The tool \(tool.definition.name) exited with status \(process.terminationStatus): \(detail.isEmpty ? text : detail)"
            )
        }
        return (try? JSONValue(parsing: text)) ?? .string(text)
    }

    /// Ends a tool run: SIGTERM to its process group (its own children too, which would
    /// otherwise keep its output open), SIGKILL two seconds later if it is still there.
    static func stop(_ process: Process, flag: AtomicFlag? = nil) {
        guard process.isRunning else { return }
        flag?.set()
        let pid = process.processIdentifier
        let target = getpgid(pid) == pid ? -pid : pid
        kill(target, SIGTERM)
        DispatchQueue.global().asyncAfter(deadline: .now() + 2) {
            if process.isRunning { kill(target, SIGKILL) }
        }
    }
    #endif
}
