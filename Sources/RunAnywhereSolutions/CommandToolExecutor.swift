@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
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
        let stopper = ChildProcess.Stopper()
        return try await withTaskCancellationHandler {
            try await Task.detached { () throws -> JSONValue in
                try Self.execute(tool, arguments: arguments, stopper: stopper)
            }.value
        } onCancel: {
            stopper.stop()
        }
        #endif
    }

    #if !(os(iOS) || os(tvOS) || os(watchOS))
    private static func execute(
        _ tool: CommandTool,
        arguments: JSONValue,
        stopper: ChildProcess.Stopper
    ) throws -> JSONValue {
        let program = tool.command[0]
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
        // A program named without a path is found on the PATH by env(1). In a process group
        // of its own, so a stop reaches its children too, which would otherwise keep its
        // output open.
        let child = ChildProcess(
            executable: program.contains("/") ? program : "/usr/bin/env",
            arguments: program.contains("/") ? Array(tool.command.dropFirst()) : tool.command,
            input: .file(input.path),
            outputLimit: maximumOutputBytes,
            timeout: .seconds(tool.timeoutSeconds),
            ownProcessGroup: true
        )
        let outcome: ChildProcess.Outcome
        do {
            outcome = try child.run(stopper: stopper)
        } catch {
            throw SDKException(
                .toolExecutionFailed,
                "The tool \(tool.definition.name) could not start \(program): \(error.readableDescription)"
            )
        }
        if outcome.timedOut || outcome.stopped {
            throw SDKException(
                .toolExecutionFailed,
                "The tool \(tool.definition.name) was stopped (timeout \(tool.timeoutSeconds) s or cancelled)"
            )
        }
        let text = outcome.outputText
        guard outcome.succeeded else {
            let detail = String(decoding: outcome.errors.prefix(2000), as: UTF8.self)
            throw SDKException(
                .toolExecutionFailed,
                "The tool \(tool.definition.name) exited with \(outcome.termination): \(detail.isEmpty ? text : detail)"
            )
        }
        return (try? JSONValue(parsing: text)) ?? .string(text)
    }
    #endif
}
