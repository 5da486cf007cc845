import Foundation
import RealEngineTestSupport
import Testing

extension RealEngineTests {
    @Suite("The CLI opens an engine only for a model of its framework", .tags(.cli))
    struct CLIColdStartTests {
        /// File-name fragments of every engine's libraries.
        static let engineNames = [
            "llama", "ggml", "mtmd", "whisper", "onnxruntime", "sherpa", "espeak", "pocketsphinx", "sphinx", "openblas",
        ]

        /// File-name fragments of the archive library, which only an extraction opens.
        static let archiveNames = ["libarchive"]

        /// Runs the CLI with the dynamic loader's `files` log and returns the libraries it opened;
        /// `input` is its standard input.
        static func librariesOpened(
            _ arguments: [String],
            input: String = "",
            environment: [String: String] = [:]
        ) throws -> (status: Int32, err: String, opened: Set<String>) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ra-ld-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            // To files (one per process) rather than stderr, which a full pipe would block.
            let run = try cli(
                arguments,
                environment: environment.merging([
                    "LD_DEBUG": "files", "LD_DEBUG_OUTPUT": folder.appendingPathComponent("ld").path,
                ]) { $1 },
                input: input
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
            """
            --version and models list open no engine library; a generation opens llama.cpp and no \
            other engine; none of them opens libarchive
            """
        )
        func enginesOpenOnlyWhenUsed() throws {
            for arguments in [["--version"], ["models", "list"]] {
                let run = try Self.librariesOpened(arguments)
                #expect(run.status == 0, "\(run.err)")
                #expect(run.opened.contains { $0.hasPrefix("libc.so") }, "the loader's log was read: \(run.opened)")
                let engines = run.opened.filter { name in Self.engineNames.contains { name.contains($0) } }
                #expect(engines.isEmpty, "\(arguments) opened \(engines.sorted())")
                let archive = run.opened.filter { name in Self.archiveNames.contains { name.contains($0) } }
                #expect(archive.isEmpty, "\(arguments) opened \(archive.sorted())")
            }
            let generation = try Self.librariesOpened([
                "generate", "--model", DefaultModels.llmId, "--prompt", "The capital of France is", "--max-tokens", "2",
                "--raw", "--temperature", "0",
            ])
            #expect(generation.status == 0, "\(generation.err)")
            #expect(generation.opened.contains { $0.hasPrefix("libllama") }, "\(generation.opened.sorted())")
            let others = generation.opened.filter { name in
                ["whisper", "onnxruntime", "sherpa", "espeak", "pocketsphinx", "openblas"].contains {
                    name.contains($0)
                }
            }
            #expect(others.isEmpty, "a generation opened \(others.sorted())")
            let archive = generation.opened.filter { name in Self.archiveNames.contains { name.contains($0) } }
            #expect(archive.isEmpty, "a generation opened \(archive.sorted())")
        }

        @Test("chat --mcp starts the server, lists its tools over MCP and calls one")
        func chatCallsAnMCPTool() throws {
            let tools = try #require(
                ProcessInfo.processInfo.environment["RUNANYWHERE_PYTHON_TOOLS"],
                "run the tests with `make test`, or after `source scripts/env.sh`"
            )
            let server = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("scripts/mcp_test_server.py").path
            let run = try Self.librariesOpened(
                [
                    "chat", "--model", DefaultModels.llmId, "--mcp", "python3 '\(server)'", "--tool-choice", "required",
                    "--temperature", "0", "--max-tokens", "48",
                ],
                input: "What is 17 plus 25?\n",
                environment: ["PYTHONPATH": tools]
            )
            #expect(run.status == 0, "\(run.err)")
            // The server's own name and tools, as it listed them over MCP.
            #expect(run.err.contains("[mcp: runanywhere-test-server: add, reverse_text, lookup_capital, slow_echo]"))
            // Tool choice `required`: the model called one of them, and the server answered.
            #expect(run.err.contains("[call "), "\(run.err)")
            #expect(run.err.contains("[result "), "\(run.err)")
        }

        @Test("bench startup --json reports the three commands, the model loads and the engine-library targets")
        func benchStartup() throws {
            let run = try cli(["bench", "startup", "--reps", "1", "--json", "--threads", "1"])
            #expect(run.status == 0, "\(run.err)")
            let report = try json(Substring(run.out))
            let rows = try #require(report["rows"] as? [[String: Any]])
            #expect(rows.map { $0["name"] as? String } == ["--version", "models list", "generate 2 tokens"])
            /// The median of a spread (`{"median", "min", "max", "count"}`), 0 when missing.
            func median(_ value: Any?) -> Double { (value as? [String: Any])?["median"] as? Double ?? 0 }
            #expect(rows.allSatisfy { median($0["sdk_ms"]) > 0 && median($0["sdk_peak_rss"]) > 0 }, "\(rows)")
            // The generation against the raw harness, repetition by repetition.
            let rawMs = try #require(rows[2]["raw_ms"] as? [String: Any], "\(rows[2])")
            #expect(median(rawMs["raw"]) > 0 && median(rawMs["sdk"]) > 0, "\(rawMs)")
            #expect(rawMs["within_noise"] is Bool && rawMs["difference"] is [String: Any], "\(rawMs)")
            #expect(rows[0]["engine_libraries"] as? [String] == [])
            #expect(rows[1]["engine_libraries"] as? [String] == [])
            #expect((rows[2]["engine_libraries"] as? [String])?.contains { $0.hasPrefix("libllama") } == true)
            // Both sides' first loads in fresh processes: the SDK's from what `generate` reported.
            let load = try #require(report["model_load_ms"] as? [String: Any], "\(report)")
            #expect(median(load["sdk"]) > 0 && median(load["raw"]) > 0, "\(load)")
            #expect(median(report["foundation_hello_ms"]) > 0, "\(report)")
            #expect(median(report["foundation_hello_peak_rss"]) > 0, "\(report)")
            let targets = try #require(report["targets"] as? [[String: Any]])
            #expect(targets.count == 6)
            #expect(targets.allSatisfy { $0["value"] is Double }, "every figure was measured: \(targets)")
            // Only the library targets are checked here: times belong to the benchmark, not to tests.
            #expect(targets.prefix(2).allSatisfy { $0["met"] as? Bool == true }, "\(targets)")
        }
    }
}
