import Foundation
import RealEngineTestSupport
import Synchronization

/// A server in a child process: `runanywhere serve`, or llama-cpp-python's server. Its
/// address comes from the line it prints when it listens (no polling), its memory from
/// /proc, and it stops by SIGTERM or SIGKILL.
final class ServerProcess: @unchecked Sendable {
    let process: Process
    let baseURL: String?
    private let stdout: Pipe
    private let stderrFile: URL?
    private let printed: Mutex<String>
    /// Ends when the output reaches its end (the process exited).
    private let drained = DispatchSemaphore(value: 0)

    private init(process: Process, stdout: Pipe, stderrFile: URL?, printed: String, baseURL: String?) {
        self.process = process
        self.stdout = stdout
        self.stderrFile = stderrFile
        self.printed = Mutex(printed)
        self.baseURL = baseURL
        // The output is read to its end from here on: a server whose pipe fills up (llama.cpp
        // logs every request) would block on its next write and stop answering.
        Thread.detachNewThread { [self] in
            while true {
                let data = stdout.fileHandleForReading.availableData
                if data.isEmpty { break }
                self.printed.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
            drained.signal()
        }
    }

    /// `runanywhere ARGUMENTS`, ready once it prints its address; `environment` is added to
    /// the test's own.
    static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> ServerProcess {
        try start(
            executable: cliBinary,
            arguments,
            address: /Serving an OpenAI-compatible API on (http:\/\/\S+\/)v1/,
            environment: environment
        )
    }

    /// llama-cpp-python's server (scripts/llama_cpp_server.sh) on a free port with the model
    /// file `model`, listed under `alias`, ready once uvicorn prints its address.
    static func llamaCppPython(model: URL, alias: String, contextLength: Int = 2048) throws -> ServerProcess {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try start(
            executable: root.appendingPathComponent("scripts/llama_cpp_server.sh"),
            [
                "--model", model.path, "--model_alias", alias, "--port", "0", "--n_ctx", "\(contextLength)",
                "--n_threads", "2",
            ],
            address: /Uvicorn running on (http:\/\/[0-9a-z.:]+)/,
            mergeErrorOutput: true
        )
    }

    /// Runs `executable` and reads its output until `address` matches (its first capture is
    /// the base URL, with or without a trailing slash), or to the end if it exits first.
    static func start(
        executable: URL,
        _ arguments: [String],
        address: Regex<(Substring, Substring)>,
        mergeErrorOutput: Bool = false,
        environment: [String: String] = [:]
    ) throws -> ServerProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardInput = FileHandle.nullDevice
        let stdout = Pipe()
        process.standardOutput = stdout
        var stderrFile: URL?
        if mergeErrorOutput {
            process.standardError = stdout
        } else {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("ra-serve-\(UUID()).err")
            _ = FileManager.default.createFile(atPath: file.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: file)
            stderrFile = file
        }
        try process.run()
        var printed = ""
        var baseURL: String?
        while baseURL == nil {
            let data = stdout.fileHandleForReading.availableData
            if data.isEmpty { break }
            printed += String(decoding: data, as: UTF8.self)
            if let match = printed.firstMatch(of: address) {
                baseURL = match.1.hasSuffix("/") ? String(match.1) : String(match.1) + "/"
            }
        }
        return ServerProcess(
            process: process,
            stdout: stdout,
            stderrFile: stderrFile,
            printed: printed,
            baseURL: baseURL
        )
    }

    /// The OpenAI base URL (`…/v1`).
    var openAIBase: URL? { baseURL.flatMap { URL(string: $0 + "v1") } }

    /// Resident memory in MB, from /proc.
    func residentMegabytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes / 1024
    }

    /// Sends SIGTERM and waits for the exit; returns the exit status.
    func terminate() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        drained.wait()
        drained.signal()
        return process.terminationStatus
    }

    /// Sends SIGKILL, as a crash or a pulled plug would end it, and waits for the exit.
    func crash() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func output() -> String { printed.withLock { $0 } }

    func errorOutput() -> String {
        stderrFile.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? output()
    }

    /// Clean-up: SIGKILL, since llama-cpp-python's server does not always exit on SIGTERM.
    func kill() {
        crash()
        if let stderrFile { try? FileManager.default.removeItem(at: stderrFile) }
    }
}
