import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

extension RealEngineTests {
    @Suite("The CLI's embed and rag commands", .tags(.cli))
    struct CLIRAGTests {
        @Test("Two processes ingest into one index at once; both land, and search, ask and stats see them")
        func concurrentProcesses() throws {
            try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-cli-rag-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let minilm = try #require(try DefaultModels.model(DefaultModelIds.embedding).localPath)
            let llm = try #require(try DefaultModels.llm().localPath)
            let h = ["--home", home.path]
            for (path, id, category) in [
                (minilm, DefaultModelIds.embedding, "embedding"), (llm, DefaultModels.llmId, "llm"),
            ] {
                let imported = try cli(
                    ["models", "import", path.path, "--id", id, "--category", category, "--framework", "llamacpp"] + h
                )
                try #require(imported.status == 0, "\(imported.err)")
            }
            let created = try cli(["rag", "create", "house", "--chunk-tokens", "64", "--overlap", "8"] + h)
            try #require(created.status == 0, "\(created.err)")

            var files: [URL] = []
            for part in 0..<2 {
                let lines = (0..<40).map { n in
                    let id = "p\(part)-\(n)"
                    let text =
                        "Note \(n) of part \(part): the \(["boiler", "garden", "attic", "garage"][n % 4]) needs attention on day \(n)."
                    return #"{"id": "\#(id)", "title": "Note \#(id)", "text": "\#(text)"}"#
                }
                let file = home.appendingPathComponent("part\(part).jsonl")
                try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
                files.append(file)
            }
            let runs = try files.map { try startCLI(["rag", "ingest", "house", $0.path, "--json"] + h) }
            for (process, out, err) in runs {
                let output = out.fileHandleForReading.readDataToEndOfFile()
                let errors = err.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "\(String(decoding: errors, as: UTF8.self))")
                let report = try json(Substring(String(decoding: output, as: UTF8.self)))
                #expect(report["documents"] as? Int == 40)
            }
            let stats = try cli(["rag", "stats", "house", "--json"] + h)
            #expect(try json(Substring(stats.out))["documents"] as? Int == 80)

            let search = try cli(["rag", "search", "house", "--query", "attic day 6", "--top-k", "3", "--json"] + h)
            #expect(search.status == 0, "\(search.err)")
            let results = try #require(try json(Substring(search.out))["results"] as? [[String: Any]])
            #expect(results.count == 3)
            #expect(results.allSatisfy { ($0["text"] as? String)?.contains("attic") == true })

            // A second stage: the LLM judges the first four; an embedding model is no reranker.
            let reranked = try cli(
                ["rag", "search", "house", "--query", "attic day 6", "--top-k", "2", "--rerank", "llm"]
                    + ["--rerank-candidates", "4", "--json"] + h
            )
            #expect(reranked.status == 0, "\(reranked.err)")
            #expect((try json(Substring(reranked.out))["results"] as? [[String: Any]])?.count == 2)
            let notReranker = try cli(
                ["rag", "search", "house", "--query", "attic", "--rerank", DefaultModelIds.embedding] + h
            )
            #expect(notReranker.status != 0)
            #expect(notReranker.err.contains("invalid_input"), "\(notReranker.err)")

            let queries = home.appendingPathComponent("queries.jsonl")
            try #"{"id": "q1", "text": "garden"}\#n{"id": "q2", "text": "boiler"}"#.write(
                to: queries,
                atomically: true,
                encoding: .utf8
            )
            let batch = try cli(
                ["rag", "search", "house", "--queries", queries.path, "--top-k", "2", "--mode", "bm25"] + h
            )
            let lines = batch.out.split(separator: "\n")
            #expect(lines.count == 2)
            #expect(try json(lines[1])["query_id"] as? String == "q2")

            let ask = try cli(
                ["rag", "ask", "house", "--question", "What needs attention on day 5?", "--max-tokens", "40", "--json"]
                    + h
            )
            #expect(ask.status == 0, "\(ask.err)")
            let answer = try json(Substring(ask.out))
            #expect((answer["sources"] as? [[String: Any]])?.isEmpty == false)

            let missing = try cli(["rag", "search", "nowhere", "--query", "x"] + h)
            #expect(missing.status != 0)
            #expect(missing.err.contains("index_not_found"), "\(missing.err)")
            let list = try cli(["rag", "list", "--json"] + h)
            #expect(list.out.contains("house"))
            let embed = try cli(["embed", "--text", "one", "--text", "two", "--json"] + h)
            let vectors = try #require(try json(Substring(embed.out))["embeddings"] as? [[Double]])
            #expect(vectors.count == 2 && vectors[0].count == 384)
            let deleted = try cli(["rag", "delete", "house"] + h)
            #expect(deleted.status == 0)
            #expect(try cli(["rag", "list", "--json"] + h).out.contains("house") == false)
        }
    }
}
