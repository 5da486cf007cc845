import ArgumentParser
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
                + "generation against raw llama.cpp), the engine libraries each maps, and model load SDK vs raw.",
            discussion: """
                Every figure is a whole process, timed from outside (fork to exit, peak RSS), after one \
                warm-up of each so the page cache holds every file. The SDK and the raw harness alternate \
                which runs first, repetition by repetition. Both exit the same way: without freeing the model. \
                The model load is each side's first load in a fresh process: the raw harness's backend start, \
                model and context, against the time `runanywhere generate` reports for its load. Each figure is \
                the median with its range; a difference whose per-repetition values range over zero is \
                "within noise". A figure that could not be measured fails its target.
                """
        )

        /// File-name fragments of the engines' libraries.
        static let engineLibraryNames = [
            "llama", "ggml", "mtmd", "whisper", "onnxruntime", "sherpa", "espeak", "pocketsphinx", "sphinxbase",
            "sphinxad", "openblas",
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

        /// One command: whole-process wall time (ms) and peak resident memory (MiB).
        struct Row: Encodable {
            var name: String
            var command: String
            var sdkMs: Spread?
            var sdkPeakRSS: Spread?
            /// Against the raw harness doing the same, where there is one, repetition by repetition.
            var rawMs: PairedRuns?
            var rawPeakRSS: PairedRuns?
            /// Engine libraries (and engine plugins) the SDK's process opened.
            var engineLibraries: [String]
            /// Every shared library it opened.
            var librariesOpened: Int
        }

        struct Report: Encodable {
            var model: String
            var threads: Int
            var contextLength: Int
            var reps: Int
            var rows: [Row]
            /// First load in a fresh process, SDK against raw, repetition by repetition.
            var modelLoadMs: PairedRuns?
            /// The floor: a Foundation hello world with an async main (`foundation-hello`), which
            /// maps what every command of the CLI maps before any SDK code runs.
            var foundationHelloMs: Spread?
            var foundationHelloPeakRSS: Spread?
            var targets: [BenchTarget]
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
            let cli = try CLI.siblingExecutable("runanywhere", override: cliBinary)
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
                    // Greedy with no penalty, as the raw harness samples.
                    arguments: [
                        "generate", "--model", model, "--prompt", prompt, "--max-tokens", "2", "--threads", threads,
                        "--context-length", String(contextLength), "--raw", "--temperature", "0",
                        "--repeat-penalty", "1",
                    ] + home,
                    raw: [path.path, promptFile.path, "2", threads, "1", String(contextLength)]
                ),
            ]

            // A warm-up of each, so the page cache holds every file for both; then repetitions
            // that alternate which side goes first, so that neither always runs on a machine the
            // other has just warmed, and drift in its speed falls on both alike.
            var sdkRuns = Array(repeating: [MeasuredProcess](), count: scenarios.count)
            var rawRuns = Array(repeating: [MeasuredProcess](), count: scenarios.count)
            var helloRuns: [MeasuredProcess] = []
            for rep in 0...baseline.reps {
                for (index, scenario) in scenarios.enumerated() {
                    var sdk: MeasuredProcess?
                    var raw: MeasuredProcess?
                    if rep % 2 == 1, let arguments = scenario.raw {
                        raw = try MeasuredProcess.run(rawBinary, arguments, meter: meter)
                    }
                    sdk = try MeasuredProcess.run(cli, scenario.arguments, meter: meter)
                    if rep % 2 == 0, let arguments = scenario.raw {
                        raw = try MeasuredProcess.run(rawBinary, arguments, meter: meter)
                    }
                    guard rep > 0 else { continue }
                    if let sdk { sdkRuns[index].append(sdk) }
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
                    environment: ProcessInfo.processInfo.environment.merging(["LD_DEBUG": "files"]) { $1 },
                    meter: meter
                )
                let opened = MeasuredProcess.librariesOpened(byLoaderDebugOutput: traced.errors)
                let sdk = sdkRuns[index]
                let raw = rawRuns[index]
                rows.append(
                    Row(
                        name: scenario.name,
                        command: (["runanywhere"] + scenario.arguments).joined(separator: " "),
                        sdkMs: Spread(sdk.map(\.wallMs)),
                        sdkPeakRSS: Spread(sdk.map(\.peakRSSMiB)),
                        rawMs: PairedRuns(sdk: sdk.map(\.wallMs), raw: raw.map(\.wallMs)),
                        rawPeakRSS: PairedRuns(sdk: sdk.map(\.peakRSSMiB), raw: raw.map(\.peakRSSMiB)),
                        engineLibraries: opened.filter { name in Self.engineLibraryNames.contains { name.contains($0) }
                        },
                        librariesOpened: opened.count
                    )
                )
            }

            // First loads in fresh processes: the raw harness's own figure, and the one
            // `generate` prints on stderr. A run that did not report one leaves the pair missing.
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let rawLoads = rawRuns[2].compactMap { run -> Double? in
                let line = String(decoding: run.output, as: UTF8.self).split(separator: "\n").last ?? ""
                return try? decoder.decode(RawSample.self, from: Data(line.utf8)).loadMs
            }
            let sdkLoads = sdkRuns[2].compactMap { Self.reportedLoadMs(String(decoding: $0.errors, as: UTF8.self)) }
            let generation = rows[2]
            let version = rows[0]
            let report = Report(
                model: model,
                threads: baseline.threads,
                contextLength: contextLength,
                reps: baseline.reps,
                rows: rows,
                modelLoadMs: PairedRuns(sdk: sdkLoads, raw: rawLoads),
                foundationHelloMs: Spread(helloRuns.map(\.wallMs)),
                foundationHelloPeakRSS: Spread(helloRuns.map(\.peakRSSMiB)),
                targets: [
                    BenchTarget(
                        "engine libraries opened by --version",
                        Double(rows[0].engineLibraries.count),
                        limit: 0
                    ),
                    BenchTarget(
                        "engine libraries opened by models list",
                        Double(rows[1].engineLibraries.count),
                        limit: 0
                    ),
                    BenchTarget("--version, ms", version.sdkMs?.median, limit: 25),
                    BenchTarget("--version, MiB", version.sdkPeakRSS?.median, limit: 35),
                    BenchTarget("2-token generation over raw, ms", generation.rawMs?.difference.median, limit: 80),
                    BenchTarget(
                        "2-token generation over raw, MiB",
                        generation.rawPeakRSS?.difference.median,
                        limit: 40
                    ),
                ]
            )
            if output.json { return try CLI.printJSON(report) }
            print(
                "Cold start — \(model), \(baseline.threads) threads, context \(contextLength), "
                    + "median (range) of \(baseline.reps) interleaved whole-process runs"
            )
            for row in rows {
                let engines = row.engineLibraries.isEmpty ? "none" : row.engineLibraries.joined(separator: " ")
                print("\(row.name): engine libraries opened: \(engines)")
                print(
                    "  SDK  \(row.sdkMs?.formatted() ?? "missing") ms, \(row.sdkPeakRSS?.formatted() ?? "missing") MiB"
                )
                if let rawMs = row.rawMs, let rawRSS = row.rawPeakRSS {
                    print("  raw  \(rawMs.raw.formatted()) ms, \(rawRSS.raw.formatted()) MiB")
                    print("  SDK: \(rawMs.summary(unit: "ms")); \(rawRSS.summary(unit: "MiB"))")
                }
            }
            if let load = report.modelLoadMs {
                print(
                    "model load, first in a fresh process: SDK \(load.sdk.formatted()) ms, raw \(load.raw.formatted()) ms; "
                        + "SDK: \(load.summary(unit: "ms"))"
                )
            } else {
                print("model load: missing (a run reported no load time)")
            }
            print(
                "floor: a Foundation hello world (async main) takes \(report.foundationHelloMs?.formatted() ?? "?") ms "
                    + "and \(report.foundationHelloPeakRSS?.formatted() ?? "?") MiB"
            )
            for target in report.targets { print(target.line) }
        }

        /// The load time in `generate`'s closing line on stderr (`…, model load 153.2 ms]`).
        static func reportedLoadMs(_ errors: String) -> Double? {
            guard let range = errors.ranges(of: "model load ").last else { return nil }
            return Double(errors[range.upperBound...].prefix { $0.isNumber || $0 == "." })
        }
    }
}
