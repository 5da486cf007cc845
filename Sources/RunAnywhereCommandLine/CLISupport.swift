import ArgumentParser
import Dispatch
import Logging
@_spi(Backend) import RunAnywhere
import RunAnywhereControlPlane
import RunAnywhereLlamaCPP
import RunAnywherePocketSphinx
import RunAnywhereRemote
import RunAnywhereResemblyzer
import RunAnywhereSherpa
import RunAnywhereSystemVoice
import RunAnywhereWhisperCPP

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

/// A subcommand whose failures print one line and exit non-zero, never a trace.
package protocol SDKCommand: AsyncParsableCommand {
    func execute() async throws
}

extension SDKCommand {
    package mutating func run() async throws {
        do {
            try await execute()
        } catch let error as SDKException {
            CLI.printError("error: \(error)")
            throw ExitCode(1)
        } catch let error as ExitCode {
            throw error
        } catch {
            CLI.printError("error: \(error)")
            throw ExitCode(1)
        }
    }
}

/// Options every command that touches the SDK shares.
package struct GlobalOptions: ParsableArguments {
    package init() {}

    @Option(name: .long, help: "The SDK home (default: $RUNANYWHERE_HOME or ~/.local/share/runanywhere).")
    package var home: String?

    @Flag(name: .long, help: "Print the SDK's log lines on stderr.")
    package var verbose = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where models with a remote endpoint run: local-only, remote-only, prefer-local, prefer-remote, "
                + "or escalate-below-<confidence> (speech to text).",
            valueName: "policy"
        )
    )
    package var routing: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where engines run models: auto (a GPU when an engine can use one), cpu, or gpu (an error "
                + "where none can be used). `doctor` lists the accelerators.",
            valueName: "device"
        )
    )
    package var accelerator: AcceleratorPreference?

    package func validate() throws {
        if let routing {
            do {
                _ = try RoutingPolicy(parsing: routing)
            } catch {
                throw ValidationError(error.message)
            }
        }
    }
}

/// What every benchmark takes: the SDK's home and `--json`.
package struct BenchOutputOptions: ParsableArguments {
    package init() {}

    @OptionGroup package var global: GlobalOptions
    @Flag(name: .long, help: "Print one JSON object.") package var json = false
}

/// What the benchmarks that race the SDK against a raw C baseline share.
package struct BaselineOptions: ParsableArguments {
    package init() {}

    @Option(help: "Measured repetitions, raw and SDK interleaved (after a warm-up of each).") package var reps = 7
    @Option(help: "Threads for both.") package var threads = ProcessInfo.processInfo.activeProcessorCount
    @Option(
        name: .customLong("raw-binary"),
        help: "The raw baseline (default: the raw-*-bench program next to this executable)."
    )
    package var rawBinary: String?
}

extension AcceleratorPreference: ExpressibleByArgument {}

package enum CLI {
    /// The control plane's base URL, when the CLI should use one.
    package static let controlPlaneURLVariable = "RUNANYWHERE_CONTROL_PLANE_URL"
    /// The API key for the control plane.
    package static let apiKeyVariable = "RUNANYWHERE_API_KEY"

    private static let bootstrapLogging: Void = {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .trace
            return handler
        }
    }()

    /// This executable's file, symlinks resolved: `argv[0]` is only `runanywhere` when the
    /// CLI is started through `PATH`, which would put its companions in the working directory.
    package static let executable: URL = {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        #endif
        return URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    }()

    /// The control plane named for this run, if any.
    package static var controlPlaneURL: String? {
        ProcessInfo.processInfo.environment[controlPlaneURLVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The modules every command has: each engine backend (which opens its engine's library on
    /// first use, so a command that runs no model maps none) and the remote engines; the keyword
    /// spotter unless `keywordSpotter` is false (wake words are then spotted in transcripts); the
    /// control plane's client when one is named.
    package static func modules(
        keywordSpotter: Bool = true,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SDKException) -> [any BackendModule] {
        var modules: [any BackendModule] = [
            LlamaCPPModule(), WhisperCPPModule(), SystemVoiceModule(), SherpaModule(), ResemblyzerModule(),
            RemoteModule(),
        ]
        if keywordSpotter { modules.append(PocketSphinxModule()) }
        // A control plane only when one is named: phase 2 then authenticates, registers this
        // device and queues telemetry, as an app's would.
        if controlPlaneURL != nil { modules.append(try ControlPlaneModule(environment: environment)) }
        return modules
    }

    /// Registers ``modules(keywordSpotter:environment:)`` and initializes the SDK.
    package static func start(_ options: GlobalOptions, keywordSpotter: Bool = true) async throws {
        _ = bootstrapLogging
        RunAnywhere.setLogLevel(options.verbose ? .debug : .error)
        let environment = ProcessInfo.processInfo.environment
        for module in try modules(keywordSpotter: keywordSpotter, environment: environment) {
            RunAnywhere.register(module)
        }
        let controlPlane = controlPlaneURL
        try RunAnywhere.initialize(
            apiKey: controlPlane == nil ? nil : environment[apiKeyVariable],
            baseURL: controlPlane,
            environment: .development,
            storageDirectory: options.home.map { URL(fileURLWithPath: $0, isDirectory: true) }
        )
        if let routing = options.routing { RunAnywhere.routing.policy = try RoutingPolicy(parsing: routing) }
        if let accelerator = options.accelerator { try RunAnywhere.hardware.setAcceleratorPreference(accelerator) }
    }

    /// SIGINT and SIGTERM as a stream, their default handling (terminate at once) turned off so
    /// the server can stop cleanly.
    package static func terminationSignals() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        nonisolated(unsafe) let sources = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")].map { number, name in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(name) }
            source.resume()
            return source
        }
        // The stream keeps the sources alive until nobody waits for a signal any more.
        continuation.onTermination = { _ in
            for source in sources { source.cancel() }
        }
        return stream
    }

    package static func printError(_ line: String) {
        writeAll(STDERR_FILENO, line + "\n")
    }

    /// Writes text to stderr as it is (progress lines that redraw themselves).
    package static func writeError(_ text: String) {
        writeAll(STDERR_FILENO, text)
    }

    /// All of standard input, to its end.
    package static func readStandardInput() -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { readFully(STDIN_FILENO, $0) }
            bytes += chunk[0..<max(count, 0)]
            guard count == chunk.count else { return bytes }
        }
    }

    /// Writes text to stdout without buffering delays (token streaming).
    package static func write(_ text: String) {
        writeAll(STDOUT_FILENO, text)
    }

    package static let jsonEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    /// Prints a value as one line of JSON with snake_case keys.
    package static func printJSON<T: Encodable>(_ value: T, pretty: Bool = false) throws {
        let encoder = jsonEncoder
        if pretty { encoder.outputFormatting.insert(.prettyPrinted) }
        let data = try encoder.encode(value)
        write(String(decoding: data, as: UTF8.self) + "\n")
    }

    /// The text of a file the user named; a missing or unreadable file is `.fileSystemError`.
    package static func readText(_ path: String, what: String) throws(SDKException) -> String {
        do {
            return try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8)
        } catch {
            throw SDKException(.fileSystemError, "Cannot read the \(what) file \(path): \(error.readableDescription)")
        }
    }

    /// The default models, used when no model is named and the bootstrap has imported them.
    package typealias Defaults = DefaultModelIds

    /// `id` when given; otherwise `fallback` if it is registered with local files, else `nil`.
    package static func model(_ id: String?, orDefault fallback: String) -> String? {
        if let id { return id }
        return (try? RunAnywhere.model(fallback))?.isDownloaded == true ? fallback : nil
    }

    /// An executable built next to this one (a raw-engine baseline, a benchmark's helper), or
    /// `override`; only from a place no other user can write.
    package static func siblingExecutable(_ name: String, override: String?) throws -> URL {
        let binary =
            override.map { URL(fileURLWithPath: $0) }
            ?? executable.deletingLastPathComponent().appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw SDKException(
                .fileSystemError,
                "The program \(binary.path) is missing",
                recovery: "Build it with `swift build` (product \(name)), or pass its path where the command takes one"
            )
        }
        return URL(fileURLWithPath: try TrustedCodeFile.check(binary.path, what: "The program"))
    }

    /// A number right-aligned in a 9-character column.
    package static func pad(_ value: Double, _ digits: Int = 1) -> String {
        let text = format(value, digits)
        return String(repeating: " ", count: max(0, 9 - text.count)) + text
    }

    package static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// The value below which `fraction` of the values lie (nearest rank).
    package static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))]
    }

    /// A byte count for people, in powers of 1000.
    package static func bytes(_ count: Int64) -> String {
        count.formattedBytes(.file)
    }

    package static func format(_ value: Double, _ digits: Int = 1) -> String {
        value.fixed(decimals: digits)
    }
}

/// Writes all of `text` to `descriptor`; on an error (a closed pipe) the rest is dropped, as a
/// terminal that has gone away would. Foundation's `FileHandle` would do the same, but on Linux
/// it lives in full Foundation, whose first call costs a generation's process pages it needs for
/// nothing else (`bench startup`).
private func writeAll(_ descriptor: Int32, _ text: String) {
    var text = text
    _ = text.withUTF8 { writeFully(descriptor, UnsafeRawBufferPointer($0)) }
}

extension String {
    /// The text in a column `width` characters wide: cut to it, or followed by spaces up to it
    /// (what Foundation's `padding(toLength:withPad:startingAt:)` does with a space).
    package func padded(to width: Int) -> String {
        count >= width ? String(prefix(width)) : self + String(repeating: " ", count: width - count)
    }
}

extension CLI {
    /// Loads the speaker encoder (`model` or the default) and a VAD model (`vadModel`, or
    /// the default when installed); returns the encoder's id.
    package static func loadDiarization(model: String?, vadModel: String?) async throws -> String {
        guard let id = CLI.model(model, orDefault: CLI.Defaults.diarization) else {
            throw SDKException(
                .modelNotFound,
                "No speaker encoder given and \(CLI.Defaults.diarization) is not installed",
                recovery: "Run `make models` or pass --model"
            )
        }
        try await RunAnywhere.loadDiarizationModel(id)
        if let vad = CLI.model(vadModel, orDefault: CLI.Defaults.vad) { try await RunAnywhere.loadVADModel(vad) }
        return id
    }
}

extension InferenceFramework {
    /// llama.cpp's id (its backend, a plugin here, declares it as `.llamaCpp` too).
    package static let llamaCpp = InferenceFramework("llamacpp")
}

/// What spots wake words: pocketsphinx's keyword spotter, or the speech model reading a
/// sliding window (`wakeword` and `bench wakeword`).
package enum WakeWordEngine: String, ExpressibleByArgument, CaseIterable, Sendable {
    case pocketsphinx
    case transcript
}
