import ArgumentParser
import Dispatch
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BenchCommand {
    /// Cold start: whole `runanywhere` processes against the raw C harness, and model loads.
    struct Startup: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "startup",
            abstract: "Cold start: time and peak memory of whole processes (--version, models list, a 2-token "
                + "generation against raw llama.cpp), the engine libraries each maps, and model load SDK vs raw."
        )

        /// File-name fragments of the engines' libraries (and the plugins that bring them).
        static let engineLibraryNames = [
            "llama", "ggml", "mtmd", "whisper", "onnxruntime", "sherpa", "espeak", "pocketsphinx", "sphinxbase",
            "sphinxad", "openblas", "Plugin.so",
        ]

        @OptionGroup var output: BenchOutputOptions
        @Option(help: "Model id for the generation and the loads.") var model = CLI.Defaults.llm
        @Option(help: "Prompt of the 2-token generation (verbatim, no chat template, for both).")
        var prompt = "The capital of France is"
        @Option(name: .customLong("context-length"), help: "Context size for both.") var contextLength = 2048
        @OptionGroup var baseline: BaselineOptions
        @Option(
            name: .customLong("cli-binary"),
            help: "The runanywhere build whose processes are measured (default: this one), e.g. an older build."
        )
        var cliBinary: String?

        /// One command: medians of whole-process wall time (ms) and peak resident memory (MiB).
        struct Row: Encodable {
            var name: String
            var command: String
            var sdkMs: Double
            var sdkPeakRSS: Double
            /// The raw harness doing the same, where there is one.
            var rawMs: Double?
            var rawPeakRSS: Double?
            var overheadMs: Double?
            var overheadRSS: Double?
            /// Engine libraries (and engine plugins) the SDK's process opened.
            var engineLibraries: [String]
            /// Every shared library it opened.
            var librariesOpened: Int
        }

        struct Target: Encodable {
            var name: String
            var value: Double
            var limit: Double
            var met: Bool
        }

        struct Report: Encodable {
            var model: String
            var threads: Int
            var contextLength: Int
            var reps: Int
            var rows: [Row]
            var sdkLoadMs: Double
            var rawLoadMs: Double
            var loadOverheadMs: Double
            /// The floor: a Foundation hello world with an async main (`foundation-hello`), which
            /// maps what every command of the CLI maps before any SDK code runs.
            var foundationHelloMs: Double
            var foundationHelloPeakRSS: Double
            var targets: [Target]
        }

        private struct RawSample: Decodable {
            var loadMs: Double
        }

        private struct Scenario {
            var name: String
            var arguments: [String]
            var raw: [String]?
        }

        func validate() throws {
            guard baseline.reps >= 1 else { throw ValidationError("--reps must be at least 1") }
            guard baseline.threads >= 1 else { throw ValidationError("--threads must be at least 1") }
            guard contextLength >= 16 else { throw ValidationError("--context-length must be at least 16") }
        }

        func execute() async throws {
            try await CLI.start(output.global)
            let info = try RunAnywhere.model(model)
            guard let path = info.localPath else {
                throw SDKException(.modelFileNotFound, "Model '\(model)' has no local file")
            }
            let cli = cliBinary.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath() } ?? CLI.executable
            let rawBinary = try CLI.siblingExecutable("raw-llama-bench", override: baseline.rawBinary)
            let meter = try CLI.siblingExecutable("process-meter", override: nil)
            let hello = try CLI.siblingExecutable("foundation-hello", override: nil)
            let promptFile = FileManager.default.temporaryDirectory.appendingPathComponent(
                "runanywhere-bench-\(UUID().uuidString).txt"
            )
            try Data(prompt.utf8).write(to: promptFile)
            defer { try? FileManager.default.removeItem(at: promptFile) }
            let home = output.global.home.map { ["--home", $0] } ?? []
            let threads = String(baseline.threads)
            let scenarios = [
                Scenario(name: "--version", arguments: ["--version"]),
                Scenario(name: "models list", arguments: ["models", "list"] + home),
                Scenario(
                    name: "generate 2 tokens",
                    arguments: [
                        "generate", "--model", model, "--prompt", prompt, "--max-tokens", "2", "--threads", threads,
                        "--context-length", String(contextLength), "--raw", "--temperature", "0",
                    ] + home,
                    raw: [path.path, promptFile.path, "2", threads, "1", String(contextLength)]
                ),
            ]

            // A warm-up of each, so the page cache holds every file for both; then interleaved
            // repetitions, so that drift in the machine's speed falls on both sides alike.
            var sdkRuns = Array(repeating: [MeasuredProcess](), count: scenarios.count)
            var rawRuns = Array(repeating: [MeasuredProcess](), count: scenarios.count)
            var helloRuns: [MeasuredProcess] = []
            for rep in 0...baseline.reps {
                for (index, scenario) in scenarios.enumerated() {
                    let sdk = try MeasuredProcess.run(cli, scenario.arguments, meter: meter)
                    let raw = try scenario.raw.map { arguments throws(SDKException) in
                        try MeasuredProcess.run(rawBinary, arguments, meter: meter)
                    }
                    guard rep > 0 else { continue }
                    sdkRuns[index].append(sdk)
                    if let raw { rawRuns[index].append(raw) }
                }
                let floor = try MeasuredProcess.run(hello, [], meter: meter)
                if rep > 0 { helloRuns.append(floor) }
            }

            var rows: [Row] = []
            for (index, scenario) in scenarios.enumerated() {
                let traced = try MeasuredProcess.run(
                    cli,
                    scenario.arguments,
                    environment: CLI.inheritedEnvironment.merging(["LD_DEBUG": "files"]) { $1 },
                    meter: meter
                )
                let opened = MeasuredProcess.librariesOpened(byLoaderDebugOutput: traced.errors)
                let sdkMs = CLI.median(sdkRuns[index].map(\.wallMs))
                let sdkRSS = CLI.median(sdkRuns[index].map(\.peakRSSMiB))
                let rawMs = rawRuns[index].isEmpty ? nil : CLI.median(rawRuns[index].map(\.wallMs))
                let rawRSS = rawRuns[index].isEmpty ? nil : CLI.median(rawRuns[index].map(\.peakRSSMiB))
                rows.append(
                    Row(
                        name: scenario.name,
                        command: (["runanywhere"] + scenario.arguments).joined(separator: " "),
                        sdkMs: sdkMs,
                        sdkPeakRSS: sdkRSS,
                        rawMs: rawMs,
                        rawPeakRSS: rawRSS,
                        overheadMs: rawMs.map { sdkMs - $0 },
                        overheadRSS: rawRSS.map { sdkRSS - $0 },
                        engineLibraries: opened.filter { name in Self.engineLibraryNames.contains { name.contains($0) }
                        },
                        librariesOpened: opened.count
                    )
                )
            }

            // Model loads in this process, the raw harness's own load time (model and context).
            let rawLoads = try rawRuns[2].map { run throws -> Double in
                let line = String(decoding: run.output, as: UTF8.self).split(separator: "\n").last ?? ""
                let decoder = JSONDecoder()
                decoder.keyDecodingStrategy = .convertFromSnakeCase
                return try decoder.decode(RawSample.self, from: Data(line.utf8)).loadMs
            }
            var sdkLoads: [Double] = []
            for rep in 0...baseline.reps {
                let start = DispatchTime.now().uptimeNanoseconds
                try await RunAnywhere.loadModel(model, contextLength: contextLength, threads: baseline.threads)
                let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                try await RunAnywhere.unloadModel()
                if rep > 0 { sdkLoads.append(ms) }
            }
            let sdkLoadMs = CLI.median(sdkLoads)
            let rawLoadMs = CLI.median(rawLoads)
            let generation = rows[2]
            let report = Report(
                model: model,
                threads: baseline.threads,
                contextLength: contextLength,
                reps: baseline.reps,
                rows: rows,
                sdkLoadMs: sdkLoadMs,
                rawLoadMs: rawLoadMs,
                loadOverheadMs: sdkLoadMs - rawLoadMs,
                foundationHelloMs: CLI.median(helloRuns.map(\.wallMs)),
                foundationHelloPeakRSS: CLI.median(helloRuns.map(\.peakRSSMiB)),
                targets: [
                    Target(
                        name: "engine libraries opened by --version",
                        value: Double(rows[0].engineLibraries.count),
                        limit: 0,
                        met: rows[0].engineLibraries.isEmpty
                    ),
                    Target(
                        name: "engine libraries opened by models list",
                        value: Double(rows[1].engineLibraries.count),
                        limit: 0,
                        met: rows[1].engineLibraries.isEmpty
                    ),
                    Target(
                        name: "model load over raw, ms",
                        value: sdkLoadMs - rawLoadMs,
                        limit: 10,
                        met: sdkLoadMs - rawLoadMs <= 10
                    ),
                    Target(
                        name: "2-token generation over raw, ms",
                        value: generation.overheadMs ?? 0,
                        limit: 30,
                        met: (generation.overheadMs ?? 0) <= 30
                    ),
                    Target(
                        name: "2-token generation over raw, MiB",
                        value: generation.overheadRSS ?? 0,
                        limit: 15,
                        met: (generation.overheadRSS ?? 0) <= 15
                    ),
                ]
            )
            if output.json { return try CLI.printJSON(report) }
            print(
                "Cold start — \(model), \(baseline.threads) threads, context \(contextLength), median of \(baseline.reps)"
            )
            print("                          SDK ms   SDK MiB     raw ms   raw MiB  engine libraries opened")
            for row in rows {
                let raw =
                    row.rawMs.map { "\(CLI.pad($0)) \(CLI.pad(row.rawPeakRSS ?? 0))" }
                    ?? String(repeating: " ", count: 19)
                let engines = row.engineLibraries.isEmpty ? "none" : row.engineLibraries.joined(separator: " ")
                print(
                    "\(row.name.padded(to: 22)) \(CLI.pad(row.sdkMs)) \(CLI.pad(row.sdkPeakRSS))  \(raw)  \(engines)"
                )
            }
            print("model load ms: SDK \(CLI.format(sdkLoadMs, 1)), raw \(CLI.format(rawLoadMs, 1))")
            print(
                "floor: a Foundation hello world (async main) takes \(CLI.format(report.foundationHelloMs, 1)) ms "
                    + "and \(CLI.format(report.foundationHelloPeakRSS, 1)) MiB"
            )
            for target in report.targets {
                print(
                    "\(target.met ? "✓" : "✗") \(target.name): \(CLI.format(target.value, 1)) (limit \(CLI.format(target.limit, 0)))"
                )
            }
        }
    }
}
