@_spi(Backend) import RunAnywhere

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

/// A child process run to completion with its wall time and peak memory, as `/usr/bin/time`
/// reports them: for benchmarks of whole processes (start-up, one-shot commands).
///
/// It runs under `process-meter` (built next to the CLI), which forks it: started straight
/// from a large process, its peak memory would include that one's.
package struct MeasuredProcess {
    /// Wall time from starting to reaping, in milliseconds.
    package var wallMs: Double
    /// Peak resident set size, in MiB (`ru_maxrss`).
    package var peakRSSMiB: Double
    /// What it wrote on standard output.
    package var output: Data
    /// What it wrote on standard error.
    package var errors: Data

    private struct Report: Decodable {
        var wallMs: Double
        var maxRssKib: Int
    }

    /// Runs `binary` with `arguments` and `environment` (the one this process got, by
    /// default) under `meter` (the `process-meter` program).
    ///
    /// - Throws: `.backendError` when it cannot be started or exits non-zero.
    package static func run(
        _ binary: URL,
        _ arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        meter: URL
    ) throws(SDKException) -> MeasuredProcess {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "runanywhere-measured-\(UUID().uuidString)",
            isDirectory: true
        )
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        } catch {
            throw SDKException(.fileSystemError, "Cannot create \(scratch.path)", underlying: error)
        }
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outFile = scratch.appendingPathComponent("out")
        let errFile = scratch.appendingPathComponent("err")
        let reportFile = scratch.appendingPathComponent("report.json")

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let argv = ([meter.path, reportFile.path, binary.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, meter.path, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw SDKException(.backendError, "Cannot start \(meter.path): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                throw SDKException(
                    .backendError,
                    "Lost \(binary.lastPathComponent): \(String(cString: strerror(errno)))"
                )
            }
        }
        let output = (try? Data(contentsOf: outFile)) ?? Data()
        let errors = (try? Data(contentsOf: errFile)) ?? Data()
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            let text = String(decoding: errors.suffix(2000), as: UTF8.self)
            throw SDKException(
                .backendError,
                "\(binary.lastPathComponent) \(arguments.joined(separator: " ")) failed (status \(status)): "
                    + text.trimmed()
            )
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        // A run the meter could not time or size fails, never reads as a fast or small one.
        guard let data = try? Data(contentsOf: reportFile), let report = try? decoder.decode(Report.self, from: data),
            report.wallMs > 0, report.maxRssKib > 0
        else {
            throw SDKException(
                .backendError,
                "\(meter.lastPathComponent) reported no wall time or peak RSS for \(binary.path)"
            )
        }
        return MeasuredProcess(
            wallMs: report.wallMs,
            peakRSSMiB: Double(report.maxRssKib) / 1024,
            output: output,
            errors: errors
        )
    }

    /// The shared libraries the dynamic loader opened in a run under `LD_DEBUG=files`, by file name.
    package static func librariesOpened(byLoaderDebugOutput errors: Data) -> [String] {
        var names = Set<String>()
        for line in String(decoding: errors, as: UTF8.self).split(separator: "\n") {
            // "     12345:\tfile=libllama.so [0];  needed by …" or "… dynamically loaded by …"
            guard let range = line.firstRange(of: "file=") else { continue }
            let rest = line[range.upperBound...]
            guard let name = rest.split(separator: " ").first, rest.contains("[") else { continue }
            names.insert(String(name.split(separator: "/").last ?? name))
        }
        return names.sorted()
    }
}
