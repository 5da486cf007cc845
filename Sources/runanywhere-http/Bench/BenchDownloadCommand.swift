import ArgumentParser
// JSONSerialization, Process and FileHandle: full Foundation's, like the HTTP stack this goes with.
import Foundation
import RunAnywhere
import RunAnywhereCommandLine
import RunAnywhereTesting

extension BenchCommand {
    /// Loopback download throughput, SDK vs `curl` on the same file and server in one run,
    /// and how much the process's memory grows while the SDK downloads.
    struct Download: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "download",
            abstract: CompanionCommand.benchDownload.abstract,
            discussion: """
                A random file is served by a separate server process on 127.0.0.1. curl and the SDK \
                fetch it alternately; the SDK's run covers everything downloadModel does (HEAD, \
                transfer, install). Memory growth is the peak RSS during an SDK download minus the \
                RSS before it (the peak is reset through /proc/self/clear_refs).
                """
        )
        @OptionGroup var output: BenchOutputOptions
        @Option(name: .customLong("size-mb"), help: "Size of the served file in MiB.") var sizeMB = 256
        @Option(help: "Measured repetitions of each, alternating (after one warm-up of each).") var reps = 3
        @Option(help: "The curl executable.") var curl = "curl"

        struct Report: Codable {
            var fileBytes: Int64
            var reps: Int
            var curlMBPerS: [Double]
            var sdkMBPerS: [Double]
            var curlMedianMBPerS: Double
            var sdkMedianMBPerS: Double
            var ratio: Double
            var sdkPeakRSSGrowthMB: [Double]
            var sdkMaxPeakRSSGrowthMB: Double
            var sdkVerifiedMBPerS: Double
            var curlPlusSha256sumMBPerS: Double
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

            var options = output.global
            options.home = work.appendingPathComponent("home").path
            try await CLI.start(options)
            let curlBinary = URL(fileURLWithPath: "/usr/bin/env")
            let curlOut = work.appendingPathComponent("curl.out")

            func runCurl() throws -> Double {
                let start = ContinuousClock.now
                _ = try CLI.runProcess(curlBinary, [curl, "-s", "-f", "-o", curlOut.path, url.absoluteString])
                let seconds = start.duration(to: .now).milliseconds / 1000
                try FileManager.default.removeItem(at: curlOut)
                return seconds
            }
            var counter = 0
            func runSDK(sha256: String? = nil) async throws -> (seconds: Double, growthMB: Double) {
                counter += 1
                let id = "bench-blob-\(counter)"
                try RunAnywhere.registerModel(
                    id: id,
                    name: "Bench blob",
                    url: url,
                    framework: .deterministic,
                    category: .llm,
                    format: .bin,
                    sha256: sha256
                )
                let baseline = Self.resetPeakAndReadRSS()
                let start = ContinuousClock.now
                let model = try await RunAnywhere.downloadModel(id) { _ in }
                let seconds = start.duration(to: .now).milliseconds / 1000
                let growth = Double(max(0, Self.status("VmHWM") - baseline)) / 1024
                guard model.sizeBytes ?? 0 >= size else { throw SDKException(.internalError, "The download is short") }
                try await RunAnywhere.removeModel(id)
                return (seconds, growth)
            }

            _ = try runCurl()
            _ = try await runSDK()
            var curlRates: [Double] = []
            var sdkRates: [Double] = []
            var growths: [Double] = []
            let mb = Double(size) / 1_000_000
            for _ in 0..<reps {
                curlRates.append(mb / (try runCurl()))
                let sdk = try await runSDK()
                sdkRates.append(mb / sdk.seconds)
                growths.append(sdk.growthMB)
            }
            // With a checksum: the SDK verifies in the validating stage; curl's equivalent is curl + sha256sum.
            let digest =
                String(decoding: try CLI.runProcess(curlBinary, ["sha256sum", blob.path]), as: UTF8.self)
                .split(separator: " ").first.map(String.init) ?? ""
            let verified = try await runSDK(sha256: digest)
            let start = ContinuousClock.now
            _ = try CLI.runProcess(curlBinary, [curl, "-s", "-f", "-o", curlOut.path, url.absoluteString])
            _ = try CLI.runProcess(curlBinary, ["sha256sum", curlOut.path])
            let curlVerified = start.duration(to: .now).milliseconds / 1000

            let report = Report(
                fileBytes: size,
                reps: reps,
                curlMBPerS: curlRates.map { ($0 * 10).rounded() / 10 },
                sdkMBPerS: sdkRates.map { ($0 * 10).rounded() / 10 },
                curlMedianMBPerS: CLI.median(curlRates),
                sdkMedianMBPerS: CLI.median(sdkRates),
                ratio: CLI.median(sdkRates) / CLI.median(curlRates),
                sdkPeakRSSGrowthMB: growths,
                sdkMaxPeakRSSGrowthMB: growths.max() ?? 0,
                sdkVerifiedMBPerS: mb / verified.seconds,
                curlPlusSha256sumMBPerS: mb / curlVerified
            )
            if output.json { return try CLI.printJSON(report) }
            print("File: \(sizeMB) MiB served from 127.0.0.1 by a separate process; \(reps) alternating runs each")
            print("                      median MB/s   runs")
            print("curl                 \(CLI.pad(report.curlMedianMBPerS))   \(report.curlMBPerS)")
            print("SDK downloadModel    \(CLI.pad(report.sdkMedianMBPerS))   \(report.sdkMBPerS)")
            print("speed ratio (SDK/curl): \(CLI.format(report.ratio, 3))")
            print(
                "SDK peak RSS growth: \(CLI.format(report.sdkMaxPeakRSSGrowthMB)) MB (max of \(growths.map { CLI.format($0) }))"
            )
            print(
                "with SHA-256: SDK \(CLI.format(report.sdkVerifiedMBPerS)) MB/s, curl + sha256sum \(CLI.format(report.curlPlusSha256sumMBPerS)) MB/s"
            )
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

        /// A field of /proc/self/status, in KiB.
        static func status(_ field: String) -> Int {
            guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") })
            else { return 0 }
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }

        /// Resets the peak RSS to the current RSS and returns it, in KiB.
        static func resetPeakAndReadRSS() -> Int {
            try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
            return status("VmRSS")
        }
    }

    /// `runanywhere bench file-server --root DIR`: serves DIR on 127.0.0.1 and prints the port.
    struct FileServer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "file-server",
            abstract: CompanionCommand.benchFileServer.abstract,
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
