import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

/// The repository's `Examples/` folder.
private let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Examples")

/// The JSON lines of `runanywhere run … --json`.
private func events(_ output: String) throws -> [[String: Any]] {
    try output.split(separator: "\n").map { try json($0) }
}

extension RealEngineTests {
    @Suite("The CLI runs the example solutions on the real engines", .tags(.cli))
    struct CLISolutionTests {
        @Test("The agent-loop example calls its command tool and answers, on the default LLM")
        func agentLoopExample() throws {
            try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
            let run = try cli(["run", examples.appendingPathComponent("agent-loop.yaml").path, "--json"])
            #expect(run.status == 0, "\(run.err)")
            let lines = try events(run.out)
            let calls = lines.filter { $0["event"] as? String == "tool_call" }
            #expect(calls.first?["name"] as? String == "count_words", "\(run.out)")
            let result = try #require(lines.first { $0["event"] as? String == "tool_result" }, "\(run.out)")
            #expect(result["is_error"] as? Bool == false)
            #expect((result["text"] as? String)?.contains("\"words\"") == true, "\(result)")
            #expect(lines.contains { $0["event"] as? String == "output" })
            let finished = try #require(lines.last)
            #expect(finished["event"] as? String == "finished")
            #expect(finished["processed"] as? Int == 1)
            #expect(finished["failed"] as? Int == 0)
        }

        @Test("The voice-agent example hears a real recording, answers it and speaks the answer")
        func voiceAgentExample() throws {
            try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
            let corpus = try SpeechCorpus.bootstrapped()
            let jfk = try #require(corpus.clips.first { $0.id == "jfk" })
            let run = try cli([
                "run", examples.appendingPathComponent("voice-agent.yaml").path, "--input", jfk.file.path, "--json",
            ])
            #expect(run.status == 0, "\(run.err)")
            let lines = try events(run.out)
            let heard = try #require(lines.first { $0["event"] as? String == "transcript" }?["text"] as? String)
            #expect(WordErrorRate(reference: jfk.transcript, hypothesis: heard).rate < 0.35, "\(heard)")
            let output = try #require(lines.first { $0["event"] as? String == "output" })
            #expect((output["text"] as? String)?.isEmpty == false)
            let audio = try #require((output["details"] as? [String: String])?["audio"])
            let reply = try WAVFile.read(contentsOf: URL(fileURLWithPath: audio))
            #expect(reply.duration > 0.3)
        }

        @Test("The rag-qa example answers from a real index with MiniLM and SmolLM2, citing its sources")
        func ragExample() throws {
            try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
            let home = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ra-cli-solution-\(UUID().uuidString)"
            )
            defer { try? FileManager.default.removeItem(at: home) }
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let h = ["--home", home.path]
            let minilm = try #require(try DefaultModels.model(DefaultModelIds.embedding).localPath)
            let llm = try #require(try DefaultModels.llm().localPath)
            for (path, id, category) in [
                (minilm, DefaultModelIds.embedding, "embedding"), (llm, DefaultModels.llmId, "llm"),
            ] {
                let imported = try cli(
                    ["models", "import", path.path, "--id", id, "--category", category, "--framework", "llamacpp"] + h
                )
                try #require(imported.status == 0, "\(imported.err)")
            }
            let notes = home.appendingPathComponent("notes.jsonl")
            try """
            {"id": "boiler", "text": "The boiler is serviced every March by Ana from Heatwise; its pressure should read 1.5 bar."}
            {"id": "garden", "text": "The garden hose is stored in the shed behind the garage during winter."}
            {"id": "bins", "text": "Recycling bins go out on Tuesday evenings; the green bin is collected every other week."}
            """.write(to: notes, atomically: true, encoding: .utf8)
            try #require(try cli(["rag", "create", "house"] + h).status == 0)
            let ingested = try cli(["rag", "ingest", "house", notes.path] + h)
            try #require(ingested.status == 0, "\(ingested.err)")

            let run = try cli(
                [
                    "run", examples.appendingPathComponent("rag-qa.yaml").path, "--input", "Who services the boiler?",
                    "--json",
                ]
                    + h
            )
            #expect(run.status == 0, "\(run.err)")
            let lines = try events(run.out)
            let output = try #require(lines.first { $0["event"] as? String == "output" }, "\(run.out)")
            #expect((output["text"] as? String)?.isEmpty == false)
            let sources = try #require((output["details"] as? [String: String])?["sources"])
            // The boiler note is retrieved first for a question about the boiler.
            #expect(sources.hasPrefix("[1] boiler"), "\(sources)")
        }

        @Test("A solution file with a bad key fails before anything loads, naming the key and its line")
        func badFile() throws {
            try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("ra-bad-\(UUID().uuidString).yaml")
            defer { try? FileManager.default.removeItem(at: file) }
            try "solution: rag-qa\nindex: house\nmax_token: 5\n".write(to: file, atomically: true, encoding: .utf8)
            let run = try cli(["run", file.path])
            #expect(run.status == 1)
            #expect(run.err.contains("line 3") && run.err.contains("'max_token'"), "\(run.err)")
        }
    }
}
