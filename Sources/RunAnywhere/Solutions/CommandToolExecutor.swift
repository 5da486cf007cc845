import Foundation
import Synchronization

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
        return try await withTaskCancellationHandler {
            try await Task.detached { () throws -> JSONValue in
                try Self.execute(tool, arguments: arguments, process: process, launched: launched)
            }.value
        } onCancel: {
            if launched.isSet, process.isRunning { process.terminate() }
        }
        #endif
    }

    #if !(os(iOS) || os(tvOS) || os(watchOS))
    private static func execute(
        _ tool: CommandTool,
        arguments: JSONValue,
        process: Process,
        launched: AtomicFlag
    ) throws -> JSONValue {
        let program = tool.command[0]
        if program.contains("/") {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = Array(tool.command.dropFirst())
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = tool.command
        }
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
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
        let timer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + tool.timeoutSeconds, execute: timer)
        defer { timer.cancel() }
        // A program that never reads its input must not block us: write, then close.
        try? input.fileHandleForWriting.write(contentsOf: Data(arguments.jsonText().utf8))
        try? input.fileHandleForWriting.close()
        let stderrData = Mutex(Data())
        let drained = DispatchGroup()
        DispatchQueue.global().async(group: drained) {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            stderrData.withLock { $0 = data }
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        drained.wait()
        if process.terminationReason == .uncaughtSignal {
            throw SDKException(
                .toolExecutionFailed,
                "The tool \(tool.definition.name) was stopped (timeout \(tool.timeoutSeconds) s or cancelled)"
            )
        }
        let text = String(decoding: data.prefix(maximumOutputBytes), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0 else {
            let detail = String(decoding: stderrData.withLock { $0 }.prefix(2000), as: UTF8.self)
            throw SDKException(
                .toolExecutionFailed,
                "The tool \(tool.definition.name) exited with status \(process.terminationStatus): \(detail.isEmpty ? text : detail)"
            )
        }
        return (try? JSONValue(parsing: text)) ?? .string(text)
    }
    #endif
}
