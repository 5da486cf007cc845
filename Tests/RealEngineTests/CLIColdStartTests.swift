import Foundation
import Testing

extension RealEngineTests {
    @Suite("The CLI opens an engine only for a model of its framework")
    struct CLIColdStartTests {
        /// File-name fragments of every engine's libraries and of the engine plugins.
        static let engineNames = [
            "llama", "ggml", "mtmd", "whisper", "onnxruntime", "sherpa", "espeak", "pocketsphinx", "openblas", "Plugin",
        ]

        /// Runs the CLI with the dynamic loader's `files` log and returns the libraries it opened.
        static func librariesOpened(_ arguments: [String]) throws -> (status: Int32, err: String, opened: Set<String>) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ra-ld-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            // To files (one per process) rather than stderr, which a full pipe would block.
            let run = try cli(
                arguments,
                environment: ["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": folder.appendingPathComponent("ld").path]
            )
            var opened: Set<String> = []
            for file in try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil) {
                for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                    guard let range = line.range(of: "file=") else { continue }
                    let name = line[range.upperBound...].split(separator: " ").first ?? ""
                    opened.insert(String(name.split(separator: "/").last ?? name))
                }
            }
            return (run.status, run.err, opened)
        }

        @Test(
            "--version and models list open no engine library; a generation opens llama.cpp's plugin and no other engine"
        )
        func enginesOpenOnlyWhenUsed() throws {
            for arguments in [["--version"], ["models", "list"]] {
                let run = try Self.librariesOpened(arguments)
                #expect(run.status == 0, "\(run.err)")
                #expect(run.opened.contains { $0.hasPrefix("libc.so") }, "the loader's log was read: \(run.opened)")
                let engines = run.opened.filter { name in Self.engineNames.contains { name.contains($0) } }
                #expect(engines.isEmpty, "\(arguments) opened \(engines.sorted())")
            }
            let generation = try Self.librariesOpened([
                "generate", "--model", DefaultModels.llmId, "--prompt", "The capital of France is", "--max-tokens", "2",
                "--raw", "--temperature", "0",
            ])
            #expect(generation.status == 0, "\(generation.err)")
            #expect(generation.opened.contains("libRunAnywhereLlamaCPPPlugin.so"), "\(generation.opened.sorted())")
            #expect(generation.opened.contains { $0.hasPrefix("libllama") })
            let others = generation.opened.filter { name in
                ["whisper", "onnxruntime", "sherpa", "espeak", "pocketsphinx", "openblas"].contains {
                    name.contains($0)
                }
            }
            #expect(others.isEmpty, "a generation opened \(others.sorted())")
        }

        @Test("bench startup --json reports the three commands, the model loads and the engine-library targets")
        func benchStartup() throws {
            let run = try cli(["bench", "startup", "--reps", "1", "--json", "--threads", "1"])
            #expect(run.status == 0, "\(run.err)")
            let report = try json(Substring(run.out))
            let rows = try #require(report["rows"] as? [[String: Any]])
            #expect(rows.map { $0["name"] as? String } == ["--version", "models list", "generate 2 tokens"])
            #expect(rows.allSatisfy { ($0["sdk_ms"] as? Double ?? 0) > 0 && ($0["sdk_peak_rss"] as? Double ?? 0) > 0 })
            #expect((rows[2]["raw_ms"] as? Double ?? 0) > 0, "\(rows[2])")
            #expect(rows[0]["engine_libraries"] as? [String] == [])
            #expect(rows[1]["engine_libraries"] as? [String] == [])
            #expect((rows[2]["engine_libraries"] as? [String])?.contains("libRunAnywhereLlamaCPPPlugin.so") == true)
            #expect((report["sdk_load_ms"] as? Double ?? 0) > 0 && (report["raw_load_ms"] as? Double ?? 0) > 0)
            let targets = try #require(report["targets"] as? [[String: Any]])
            #expect(targets.count == 5)
            // Only the library targets are checked here: times belong to the benchmark, not to tests.
            #expect(targets.prefix(2).allSatisfy { $0["met"] as? Bool == true }, "\(targets)")
        }
    }
}
