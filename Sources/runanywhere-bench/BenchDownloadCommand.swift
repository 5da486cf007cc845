import ArgumentParser
// JSONDecoder, Process and FileHandle: full Foundation's, like the HTTP stack this goes with.
import Foundation
import RunAnywhere
import RunAnywhereCommandLine
import RunAnywhereTesting
import RunAnywhereTestingFileServer

extension BenchCommand {
    /// Loopback download throughput, `runanywhere models download` vs `curl` on the same file and
    /// server in one run, each a whole process whose wall time and peak memory are measured alike.
    struct Download: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "download",
            abstract: "Download throughput and peak memory on loopback, SDK vs curl, both as whole processes.",
            discussion: """
                A random file is served by a separate server process on 127.0.0.1. Both sides are whole \
                processes started the same way, under process-meter (built next to this executable), which \
                reports each one's wall time and peak RSS (ru_maxrss): `curl -s -f -o FILE URL` and \
                `runanywhere models download ID --home HOME`, whose run covers the CLI's start and \
                everything downloadModel does (HEAD, transfer, install). Before each SDK run the file is \
                registered in a fresh home, untimed, so that every run downloads it from scratch; --home is \
                not used. After one warm-up of each, the order alternates: curl first on even repetitions, \
                the SDK first on odd ones.

                JSON: curl_mb_per_s and sdk_process_mb_per_s are each run's MB (10^6 bytes) over its wall \
                time, with their median, min and max (curl_median_mb_per_s, sdk_process_min_mb_per_s, …); \
                sdk_process_to_curl_ratio is the ratio of the two medians; curl_peak_rss and \
                sdk_process_peak_rss are each process's peak RSS in MiB, with their median, min and max \
                (curl_median_peak_rss, …). The checksum pass is 3 alternating runs of each: \
                sdk_process_verified_{median,min,max}_mb_per_s with the file registered with its SHA-256, \
                which the SDK checks; curl_plus_sha256sum_{median,min,max}_mb_per_s with a sha256sum \
                process's wall time added to curl's. They replace sdk_mb_per_s, ratio, \
                sdk_peak_rss_growth_mb, sdk_max_peak_rss_growth_mb, sdk_verified_mb_per_s and \
                curl_plus_sha256sum_mb_per_s, which timed the SDK inside this process.
                """
        )
        @OptionGroup var output: BenchOutputOptions
        @Option(name: .customLong("size-mb"), help: "Size of the served file in MiB.") var sizeMB = 256
        @Option(help: "Measured repetitions of each, alternating the order (after one warm-up of each); at least 3.")
        var reps = 3
        @Option(help: "The curl executable: a path, or a name looked up in PATH.") var curl = "curl"
        @Option(
            name: .customLong("cli-binary"),
            help: "The runanywhere executable whose downloads are timed (default: the one next to this executable)."
        )
        var cliBinary: String?

        /// The id the served file is registered under, in each run's own home.
        static let modelID = "bench-blob"
        /// Runs of each side in the checksum pass: enough for a median.
        static let checksumReps = 3

        struct Report: Encodable {
            var fileBytes: Int64
            var reps: Int
            var curlMBPerS: [Double]
            var curlMedianMBPerS: Double
            var curlMinMBPerS: Double
            var curlMaxMBPerS: Double
            /// Each `runanywhere models download` process's MB/s.
            var sdkProcessMBPerS: [Double]
            var sdkProcessMedianMBPerS: Double
            var sdkProcessMinMBPerS: Double
            var sdkProcessMaxMBPerS: Double
            /// The SDK's median MB/s over curl's.
            var sdkProcessToCurlRatio: Double
            /// Each curl process's peak RSS, in MiB.
            var curlPeakRSS: [Double]
            var curlMedianPeakRSS: Double
            var curlMinPeakRSS: Double
            var curlMaxPeakRSS: Double
            /// Each `runanywhere models download` process's peak RSS, in MiB.
            var sdkProcessPeakRSS: [Double]
            var sdkProcessMedianPeakRSS: Double
            var sdkProcessMinPeakRSS: Double
            var sdkProcessMaxPeakRSS: Double
            /// `models download` of the file registered with its SHA-256, over ``checksumReps`` runs.
            var sdkProcessVerifiedMedianMBPerS: Double
            var sdkProcessVerifiedMinMBPerS: Double
            var sdkProcessVerifiedMaxMBPerS: Double
            /// curl, then sha256sum on what it wrote: the two processes' wall times added.
            var curlPlusSha256sumMedianMBPerS: Double
            var curlPlusSha256sumMinMBPerS: Double
            var curlPlusSha256sumMaxMBPerS: Double
            /// From `cancelDownload` to the end of the download's progress stream, in this process,
            /// once per repetition, the transfer throttled to 4 MiB/s and cancelled after 1 MiB.
            var cancelToStopMs: Spread?
            /// The slowest of them within ``cancelTargetMs``; missing unless every repetition gave one.
            var cancelTarget: BenchTarget
        }

        /// How soon a cancelled download must stop.
        static let cancelTargetMs = 1000.0

        /// Cancels a throttled download in this process `reps` times (after the timed processes,
        /// which it does not disturb) and returns each time from the cancel to the stream's end.
        static func cancelLatencies(root: URL, home: URL, reps: Int) async throws -> [Double] {
            let server = try await LocalFileServer.start(root: root)
            server.setFault(FaultPlan(bytesPerSecond: 4 << 20), for: "blob.bin")
            let sdk = try RunAnywhereSDK(home: home)
            var latencies: [Double] = []
            do {
                for rep in 0..<reps {
                    let id = "cancel-\(rep)"
                    _ = try sdk.registerModel(
                        id: id,
                        name: id,
                        url: server.url(for: "blob.bin"),
                        framework: .llamaCpp,
                        category: .llm
                    )
                    var cancelledAt: ContinuousClock.Instant?
                    for await report in try sdk.downloadModel(id)
                    where cancelledAt == nil && report.bytesDownloaded >= 1 << 20 {
                        _ = try sdk.cancelDownload(id)
                        cancelledAt = .now
                    }
                    if let cancelledAt { latencies.append(cancelledAt.duration(to: .now).milliseconds) }
                }
            } catch {
                await sdk.shutdown()
                await server.stop()
                throw error
            }
            await sdk.shutdown()
            await server.stop()
            return latencies
        }

        /// One process's run under process-meter.
        struct Measured {
            /// Wall time from fork to reaping, in seconds.
            var seconds: Double
            /// Peak resident set size (`ru_maxrss`), in MiB.
            var peakRSS: Double
            /// What it wrote on standard output.
            var output: Data
        }

        /// The median and range of one side's runs.
        /// The spread of `values`; throws for none: a missing figure must fail the run, not read as 0.
        static func spread(_ values: [Double]) throws -> Spread {
            guard let spread = Spread(values) else { throw SDKException(.internalError, "No runs to summarize") }
            return spread
        }

        /// The fields of a `models list --json` entry the check after a download needs.
        private struct ListedModel: Decodable {
            var id: String
            var sizeBytes: Int64?
        }

        func validate() throws {
            guard reps >= 3 else { throw ValidationError("--reps must be at least 3, for a median and a spread") }
            guard sizeMB >= 1 else { throw ValidationError("--size-mb must be at least 1") }
        }

        func execute() async throws {
            let work = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ra-bench-download-\(UUID().uuidString)"
            )
            let root = work.appendingPathComponent("serve")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            let blob = root.appendingPathComponent("blob.bin")
            try Self.writeRandomFile(blob, bytes: Int64(sizeMB) << 20)
            let size = Int64(sizeMB) << 20

            let server = try Self.startServer(root: root)
            defer {
                server.terminate()
                server.waitUntilExit()
            }
            let url =
                try Self.readPort(server).map { URL(string: "http://127.0.0.1:\($0)/blob.bin")! }
                ?? { throw SDKException(.backendError, "The file server did not start") }()

            // This process starts no SDK: both sides are children, so neither gets a warm libcurl or
            // a home already open, and the children inherit the environment as this process got it.
            let meter = try CLI.siblingExecutable("process-meter", override: nil)
            let cli = try CLI.siblingExecutable("runanywhere", override: cliBinary)
            let curlBinary = try Self.resolveExecutable(curl)
            let sha256sum = try Self.resolveExecutable("sha256sum")
            let curlOut = work.appendingPathComponent("curl.out")

            func runCurl(digest: String? = nil) throws -> Measured {
                var run = try Self.measure(
                    curlBinary,
                    ["-s", "-f", "-o", curlOut.path, url.absoluteString],
                    meter: meter
                )
                if let digest {
                    let check = try Self.measure(sha256sum, [curlOut.path], meter: meter)
                    guard try Self.digest(in: check.output) == digest else {
                        throw SDKException(.checksumMismatch, "curl's copy of the file has another SHA-256")
                    }
                    run.seconds += check.seconds
                    run.peakRSS = max(run.peakRSS, check.peakRSS)
                }
                try FileManager.default.removeItem(at: curlOut)
                return run
            }
            var homes = 0
            func runSDK(sha256: String? = nil) throws -> Measured {
                homes += 1
                let home = work.appendingPathComponent("home-\(homes)").path
                // Registered by a process of its own, untimed: the timed one then finds an initialized
                // home that has the model registered and not downloaded, as an app's would be.
                var register = [
                    "models", "register", "--home", home, "--id", Self.modelID, "--url", url.absoluteString,
                    "--category", "llm", "--framework", "deterministic",
                ]
                if let sha256 { register += ["--sha256", sha256] }
                _ = try CLI.runProcess(cli, register)
                let run = try Self.measure(
                    cli,
                    ["models", "download", Self.modelID, "--home", home],
                    meter: meter
                )
                try Self.checkDownloaded(cli: cli, home: home, bytes: size)
                try FileManager.default.removeItem(atPath: home)
                return run
            }
            func alternate(_ count: Int, digest: String? = nil) throws -> (curl: [Measured], sdk: [Measured]) {
                var curlRuns: [Measured] = []
                var sdkRuns: [Measured] = []
                for rep in 0..<count {
                    // Whatever a run leaves behind (dirty pages still being written back, a warmer
                    // cache) then falls on each side as often as on the other.
                    if rep % 2 == 0 {
                        curlRuns.append(try runCurl(digest: digest))
                        sdkRuns.append(try runSDK(sha256: digest))
                    } else {
                        sdkRuns.append(try runSDK(sha256: digest))
                        curlRuns.append(try runCurl(digest: digest))
                    }
                }
                return (curlRuns, sdkRuns)
            }

            // One untimed warm-up of each, so that the page cache holds the served file and both programs
            // before the first measured run of either.
            _ = try runCurl()
            _ = try runSDK()
            let plain = try alternate(reps)
            // With a checksum: the SDK verifies in the validating stage; curl's equivalent is curl + sha256sum.
            let checksum = try Self.digest(in: try CLI.runProcess(sha256sum, [blob.path]))
            let verified = try alternate(Self.checksumReps, digest: checksum)

            let mb = Double(size) / 1_000_000
            let curlRates = plain.curl.map { mb / $0.seconds }
            let sdkRates = plain.sdk.map { mb / $0.seconds }
            let curlRate = try Self.spread(curlRates)
            let sdkRate = try Self.spread(sdkRates)
            let curlRSS = try Self.spread(plain.curl.map(\.peakRSS))
            let sdkRSS = try Self.spread(plain.sdk.map(\.peakRSS))
            let sdkVerified = try Self.spread(verified.sdk.map { mb / $0.seconds })
            let curlVerified = try Self.spread(verified.curl.map { mb / $0.seconds })
            // Last, in this process: the timed processes above ran without an SDK here.
            let cancels = try await Self.cancelLatencies(
                root: root,
                home: work.appendingPathComponent("cancel-home"),
                reps: reps
            )
            let report = Report(
                fileBytes: size,
                reps: reps,
                curlMBPerS: curlRates.map(Self.tenths),
                curlMedianMBPerS: curlRate.median,
                curlMinMBPerS: curlRate.min,
                curlMaxMBPerS: curlRate.max,
                sdkProcessMBPerS: sdkRates.map(Self.tenths),
                sdkProcessMedianMBPerS: sdkRate.median,
                sdkProcessMinMBPerS: sdkRate.min,
                sdkProcessMaxMBPerS: sdkRate.max,
                sdkProcessToCurlRatio: sdkRate.median / curlRate.median,
                curlPeakRSS: plain.curl.map { Self.tenths($0.peakRSS) },
                curlMedianPeakRSS: curlRSS.median,
                curlMinPeakRSS: curlRSS.min,
                curlMaxPeakRSS: curlRSS.max,
                sdkProcessPeakRSS: plain.sdk.map { Self.tenths($0.peakRSS) },
                sdkProcessMedianPeakRSS: sdkRSS.median,
                sdkProcessMinPeakRSS: sdkRSS.min,
                sdkProcessMaxPeakRSS: sdkRSS.max,
                sdkProcessVerifiedMedianMBPerS: sdkVerified.median,
                sdkProcessVerifiedMinMBPerS: sdkVerified.min,
                sdkProcessVerifiedMaxMBPerS: sdkVerified.max,
                curlPlusSha256sumMedianMBPerS: curlVerified.median,
                curlPlusSha256sumMinMBPerS: curlVerified.min,
                curlPlusSha256sumMaxMBPerS: curlVerified.max,
                cancelToStopMs: Spread(cancels),
                cancelTarget: BenchTarget(
                    "cancel to stop, slowest ms",
                    cancels.count == reps ? cancels.max() : nil,
                    limit: Self.cancelTargetMs
                )
            )
            if output.json { return try CLI.printJSON(report) }
            print(
                "File: \(sizeMB) MiB served from 127.0.0.1 by a separate process; \(reps) alternating runs of each, "
                    + "whole processes under process-meter"
            )
            print("                           median MB/s  (min–max)         peak RSS MiB  (min–max)")
            print(Self.row("curl", rate: curlRate, rss: curlRSS))
            print(Self.row("runanywhere models download", rate: sdkRate, rss: sdkRSS))
            print("speed ratio (SDK/curl, medians): \(CLI.format(report.sdkProcessToCurlRatio, 3))")
            print(
                "with SHA-256, median of \(Self.checksumReps): SDK \(Self.describe(sdkVerified)) MB/s, "
                    + "curl + sha256sum \(Self.describe(curlVerified)) MB/s"
            )
            let stopped = report.cancelToStopMs.map { "\($0.formatted()) ms" } ?? "missing"
            print("cancel → stopped (in process, \(cancels.count) of \(reps)): \(stopped)")
            print(report.cancelTarget.line)
        }

        /// A value rounded to 0.1, for the per-run lists.
        static func tenths(_ value: Double) -> Double {
            (value * 10).rounded() / 10
        }

        /// "median (min–max)".
        static func describe(_ spread: Spread) -> String {
            "\(CLI.format(spread.median)) (\(CLI.format(spread.min))–\(CLI.format(spread.max)))"
        }

        /// One side's line of the table.
        static func row(_ name: String, rate: Spread, rss: Spread) -> String {
            let rates = "(\(CLI.format(rate.min))–\(CLI.format(rate.max)))".padded(to: 20)
            let memory = "(\(CLI.format(rss.min))–\(CLI.format(rss.max)))"
            return "\(name.padded(to: 28)) \(CLI.pad(rate.median))  \(rates) \(CLI.pad(rss.median))  \(memory)"
        }

        /// Runs `program` under process-meter (``MeasuredProcess``), as both sides are measured.
        static func measure(_ program: URL, _ arguments: [String], meter: URL) throws -> Measured {
            let run = try MeasuredProcess.run(program, arguments, meter: meter)
            return Measured(seconds: run.wallMs / 1000, peakRSS: run.peakRSSMiB, output: run.output)
        }

        /// Fails unless `models list` in `home` shows the model installed with at least `bytes`:
        /// a run that exits 0 without the whole file must not count as a fast one.
        static func checkDownloaded(cli: URL, home: String, bytes: Int64) throws {
            let listing = try CLI.runProcess(cli, ["models", "list", "--home", home, "--json"])
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let models = try decoder.decode([ListedModel].self, from: listing)
            guard let installed = models.first(where: { $0.id == modelID })?.sizeBytes, installed >= bytes else {
                throw SDKException(.internalError, "The download is short")
            }
        }

        /// The digest sha256sum printed first; anything but 64 hex digits is an error, never an
        /// empty digest that a comparison or a registration would take at face value.
        static func digest(in output: Data) throws -> String {
            let text = String(decoding: output, as: UTF8.self)
            guard let first = text.split(separator: " ").first, first.count == 64, first.allSatisfy(\.isHexDigit)
            else {
                throw SDKException(.backendError, "sha256sum printed no digest")
            }
            return first.lowercased()
        }

        /// `name` as an absolute path: process-meter starts it with execv, which searches no PATH, and
        /// going through `/usr/bin/env` would cost curl an exec the SDK's side does not pay.
        static func resolveExecutable(_ name: String) throws -> URL {
            let candidates =
                name.contains("/")
                ? [URL(fileURLWithPath: name)]
                : (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
                    .map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
                throw SDKException(.fileSystemError, "\(name) is not an executable file, nor one in PATH")
            }
            return found.standardizedFileURL
        }

        static func writeRandomFile(_ url: URL, bytes: Int64) throws {
            guard let random = FileHandle(forReadingAtPath: "/dev/urandom") else {
                throw SDKException(.fileSystemError, "Cannot read /dev/urandom")
            }
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw SDKException(.fileSystemError, "Cannot create \(url.path)")
            }
            let out = try FileHandle(forWritingTo: url)
            var left = bytes
            while left > 0 {
                let chunk = random.readData(ofLength: Int(min(left, 4 << 20)))
                out.write(chunk)
                left -= Int64(chunk.count)
            }
            try out.close()
        }

        /// The file server as a child process, so its memory and threads are not the SDK's.
        static func startServer(root: URL) throws -> Process {
            let process = Process()
            process.executableURL = CLI.executable
            process.arguments = ["bench", "file-server", "--root", root.path]
            process.standardOutput = Pipe()
            try process.run()
            return process
        }

        static func readPort(_ server: Process) throws -> Int? {
            guard let pipe = server.standardOutput as? Pipe else { return nil }
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let data = pipe.fileHandleForReading.availableData
                if data.isEmpty { return nil }
                line.append(data)
            }
            return Int(String(decoding: line, as: UTF8.self).trimmed())
        }
    }

    /// `runanywhere bench file-server --root DIR`: serves DIR on 127.0.0.1 and prints the port.
    struct FileServer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "file-server",
            abstract: "Serve a folder on 127.0.0.1 (for bench download).",
            shouldDisplay: false
        )
        @Option(help: "The folder to serve.") var root: String
        @Option(help: "The port (0: any free one).") var port = 0

        func run() async throws {
            let server = try await LocalFileServer.start(root: URL(fileURLWithPath: root), port: port)
            CLI.write("\(server.port)\n")
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
    }
}
