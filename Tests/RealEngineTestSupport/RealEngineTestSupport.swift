import Foundation
import RunAnywhereLlamaCPP
import RunAnywherePocketSphinx
import RunAnywhereRemote
import RunAnywhereResemblyzer
import RunAnywhereSherpa
import RunAnywhereSystemVoice
import RunAnywhereWhisperCPP
import Testing

@_spi(Backend) @testable import RunAnywhere

/// What a test needs or does, to choose a lane: `make test-fast` (which skips the real-engine
/// test targets) runs everything that needs no engine; `--filter tag:cli` or `--skip tag:fuzz`
/// where the toolchain's Swift Testing filters by tag.
extension Tag {
    /// Runs a real engine on a real model (every test of the real-engine targets).
    @Tag package static var realEngine: Self
    /// Runs the `runanywhere` executables as a user would.
    @Tag package static var cli: Self
    /// Throws generated requests at a server for a long while.
    @Tag package static var fuzz: Self
}

/// The default models installed by scripts/bootstrap, read from the default SDK store.
package enum DefaultModels {
    package static let llmId = DefaultModelIds.llm
    package static let sttId = DefaultModelIds.stt
    package static let ttsId = DefaultModelIds.tts
    package static let vadId = DefaultModelIds.vad
    package static let speech = [sttId, ttsId, vadId]

    package static func llm() throws -> ModelInfo { try model(llmId) }

    package static func model(_ id: String) throws -> ModelInfo {
        let registry = ModelRegistry(paths: SDKPaths(home: SDKPaths.defaultHome()))
        try registry.load()
        guard let model = try? registry.get(id), let path = model.localPath,
            FileManager.default.fileExists(atPath: path.path)
        else {
            Issue.record("The default model \(id) is not installed: run `make test` (it runs scripts/bootstrap)")
            throw SDKException(.modelNotFound, "default model \(id) missing")
        }
        return model
    }
}

/// Every engine backend, as a test's own SDK instance takes them.
package let allModules: [any BackendModule] = [
    LlamaCPPModule(), WhisperCPPModule(), SherpaModule(), SystemVoiceModule(), PocketSphinxModule(),
    ResemblyzerModule(), RemoteModule(),
]

/// A fresh SDK instance with every backend in a temporary home, and the given default
/// models registered by reference (no copy). Always shuts the instance down and deletes
/// the home. Instances share no state, so tests need no global set-up or reset.
@discardableResult
package func withSDK<T>(
    models: [String] = [DefaultModels.llmId],
    modules: [any BackendModule] = allModules,
    _ body: (RunAnywhereSDK) async throws -> T
) async throws -> T {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-test-\(UUID().uuidString)")
    RunAnywhere.setLogLevel(ProcessInfo.processInfo.environment["RA_TEST_LOG"] == "debug" ? .debug : .error)
    defer { try? FileManager.default.removeItem(at: home) }
    let sdk = try RunAnywhereSDK(home: home, environment: .development, modules: modules)
    do {
        for id in models {
            var model = try DefaultModels.model(id)
            model.lastUsedAt = nil
            try sdk.registerModel(model)
        }
        let result = try await body(sdk)
        await sdk.shutdown()
        return result
    } catch {
        await sdk.shutdown()
        throw error
    }
}

/// Runs `scripts/<name>` with the bootstrap's Python tools on `PYTHONPATH`, feeding `input`
/// on stdin; returns its stdout and requires it to succeed.
package func runPythonScript(_ name: String, _ arguments: [String], input: Data = Data()) throws -> Data {
    let environment = ProcessInfo.processInfo.environment
    guard let tools = environment["RUNANYWHERE_PYTHON_TOOLS"] else {
        Issue.record("RUNANYWHERE_PYTHON_TOOLS is not set: run `make test`")
        throw SDKException(.invalidConfiguration, "no python tools")
    }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", root.appendingPathComponent("scripts/\(name)").path] + arguments
    process.environment = environment.merging(["PYTHONPATH": tools]) { $1 }
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    try process.run()
    stdin.fileHandleForWriting.write(input)
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "scripts/\(name) failed")
    return output
}

/// Options for deterministic runs.
package let greedy = LLMGenerationOptions(maxTokens: 32, temperature: 0, repetitionPenalty: 1)

/// Runs `scripts/<name>` with `interpreter` (bash, or python3 with the bootstrap's tools on
/// `PYTHONPATH`) on a thread of its own, so a long script does not hold one of Swift's two
/// cooperative threads; returns its exit status and its stdout and stderr together.
package func runScript(
    _ name: String,
    _ arguments: [String],
    interpreter: String = "bash"
) async throws -> (status: Int32, output: String) {
    try await onOwnThread { try runScriptBlocking(name, arguments, interpreter: interpreter) }
}

/// Runs blocking work (a child process, a pipe read) on a thread of its own and waits for it.
package func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

private func runScriptBlocking(
    _ name: String,
    _ arguments: [String],
    interpreter: String
) throws -> (status: Int32, output: String) {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [interpreter, root.appendingPathComponent("scripts/\(name)").path] + arguments
    let environment = ProcessInfo.processInfo.environment
    if let tools = environment["RUNANYWHERE_PYTHON_TOOLS"] {
        process.environment = environment.merging(["PYTHONPATH": tools]) { $1 }
    }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

// MARK: The CLI, run as a user runs it

/// The `runanywhere` binary built next to the tests (by `swift build --build-tests`).
package let cliBinary: URL = {
    var folder = URL(fileURLWithPath: #filePath)
    while folder.path != "/",
        !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path)
    {
        folder.deleteLastPathComponent()
    }
    return folder.appendingPathComponent(".build/debug/runanywhere")
}()

/// Runs the CLI, with `environment` added to the test's own and `input`, when given, as its
/// standard input; returns its exit status, standard output and standard error.
package func cli(
    _ arguments: [String],
    environment: [String: String] = [:],
    input: String? = nil
) throws -> (status: Int32, out: String, err: String) {
    let stdin = input.map { _ in Pipe() }
    let (process, out, err) = try startCLI(arguments, environment: environment, input: stdin)
    if let stdin, let input {
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
    }
    let output = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
}

/// Starts the CLI without waiting for it, for tests that run several at once; `environment`
/// is added to the test's own, and `input` becomes its standard input.
package func startCLI(
    _ arguments: [String],
    environment: [String: String] = [:],
    input: Pipe? = nil
) throws -> (Process, Pipe, Pipe) {
    let process = Process()
    process.executableURL = cliBinary
    process.arguments = arguments
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    if let input { process.standardInput = input }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    return (process, out, err)
}

/// One line of JSON output as an object.
package func json(_ line: Substring) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
}

/// A SHA-256 computed by the system's `sha256sum`, independent of the SDK's own.
package func sha256sum(_ file: URL) throws -> String {
    let process = Process()
    let pipe = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [file.path]
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
}

/// Resident memory of this process, in bytes (0 where `/proc` cannot say).
package func residentMemory() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
        let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

extension LLMGenerationOptions {
    /// The sampling these tests' thresholds were measured with (top-p 0.95, top-k 40,
    /// repetition penalty 1.1), pinned now that the SDK's defaults are the original SDK's
    /// (no top-k, no penalty): greedy output changes with the penalty.
    package static func tuned(maxTokens: Int, temperature: Float, seed: UInt32? = nil) -> LLMGenerationOptions {
        LLMGenerationOptions(
            maxTokens: maxTokens,
            temperature: temperature,
            topP: 0.95,
            topK: 40,
            repetitionPenalty: 1.1,
            seed: seed
        )
    }
}
