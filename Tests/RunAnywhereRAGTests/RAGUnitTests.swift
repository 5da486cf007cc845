import Foundation
import GRDB
import RunAnywhereTestSupport
import RunAnywhereTesting
import Synchronization
import Testing

@_spi(Backend) @testable import RunAnywhere
@testable import RunAnywhereRAG

/// A small corpus whose documents share few words, so the deterministic (bag-of-words)
/// embeddings rank them predictably.
private let corpus: [(id: String, text: String, topic: String)] = [
    (
        "fridge",
        "The fridge door code is 4711. Keep the milk on the top shelf. Defrost the freezer every spring.",
        "kitchen"
    ),
    (
        "garden",
        "Water the tomatoes every morning in summer. Roses need pruning in early March. Compost goes behind the shed.",
        "outdoor"
    ),
    (
        "car",
        "The car needs an oil change every 15000 kilometres. Tyre pressure is 2.4 bar. The spare key hangs in the hall.",
        "garage"
    ),
    (
        "wifi",
        "The wifi network is called Lighthouse. Its password is printed under the router. Restart the router when pages stall.",
        "home"
    ),
]

private func withIndex<T>(
    chunking: RAGChunkingOptions = RAGChunkingOptions(chunkTokens: 16, overlapTokens: 4),
    _ body: (RunAnywhereSDK, RAGIndex) async throws -> T
) async throws -> T {
    try await withDeterministicSDK { sdk in
        let index = try await sdk.createRAGIndex(
            "notes",
            embeddingModel: DeterministicModels.embedding,
            chunking: chunking
        )
        for document in corpus {
            try await index.ingest(documentId: document.id, text: document.text, metadata: ["topic": document.topic])
        }
        return try await body(sdk, index)
    }
}

@Suite("RAG index on the deterministic backend")
struct RAGUnitTests {
    @Test("Every search mode finds the document a question is about")
    func searchModesFindTheRightDocument() async throws {
        try await withIndex { _, index in
            for mode in RAGSearchMode.allCases {
                let hits = try await index.search(
                    "what is the wifi password of the router",
                    options: RAGSearchOptions(topK: 3, mode: mode)
                )
                #expect(hits.first?.documentId == "wifi", "\(mode): \(hits.map(\.documentId))")
                #expect(hits.count <= 3)
                #expect(zip(hits, hits.dropFirst()).allSatisfy { $0.score >= $1.score })
            }
            let tyres = try await index.search("tyre pressure", options: RAGSearchOptions(topK: 1, mode: .bm25))
            #expect(tyres.map(\.documentId) == ["car"])
        }
    }

    @Test("A result's offsets cut its text out of the original document")
    func offsetsPointIntoTheDocument() async throws {
        try await withIndex { _, index in
            let hits = try await index.search("defrost the freezer", options: RAGSearchOptions(topK: 10, mode: .hybrid))
            #expect(!hits.isEmpty)
            for hit in hits {
                let document = try #require(corpus.first { $0.id == hit.documentId })
                let bytes = Array(document.text.utf8)
                #expect(String(decoding: bytes[hit.startOffset..<hit.endOffset], as: UTF8.self) == hit.text)
            }
        }
    }

    @Test("Re-ingesting a document id replaces it; deleting removes it from every mode")
    func replaceAndDelete() async throws {
        try await withIndex { _, index in
            let replaced = try await index.ingest(documentId: "fridge", text: "The fridge was sold in June.")
            #expect(replaced.replaced)
            let old = try await index.search("milk shelf", options: RAGSearchOptions(topK: 10, mode: .bm25))
            #expect(!old.contains { $0.documentId == "fridge" })
            #expect(try await index.delete(documentId: "car"))
            #expect(try await !index.delete(documentId: "car"))
            for mode in RAGSearchMode.allCases {
                let hits = try await index.search("car oil tyre key", options: RAGSearchOptions(topK: 10, mode: mode))
                #expect(!hits.contains { $0.documentId == "car" }, "\(mode)")
            }
            let stats = try await index.stats()
            #expect(stats.documents == 3)
            #expect(try await index.documentIds() == ["fridge", "garden", "wifi"])
        }
    }

    @Test("A metadata filter keeps only matching documents")
    func metadataFilter() async throws {
        try await withIndex { _, index in
            for mode in RAGSearchMode.allCases {
                let hits = try await index.search(
                    "router password tomatoes",
                    options: RAGSearchOptions(topK: 10, mode: mode, filter: ["topic": "outdoor"])
                )
                #expect(!hits.isEmpty)
                #expect(hits.allSatisfy { $0.documentId == "garden" && $0.metadata["topic"] == "outdoor" })
            }
            let none = try await index.search("router", options: RAGSearchOptions(filter: ["topic": "nowhere"]))
            #expect(none.isEmpty)
        }
    }

    @Test("Hybrid ranking is reciprocal rank fusion of both lists")
    func fusionArithmetic() {
        let fused = RAGIndex.fuse([[(1, 9), (2, 8)], [(2, 0.9), (3, 0.8)]], k: 60)
        #expect(fused.map(\.0) == [2, 1, 3])
        #expect(abs(fused[0].1 - (1.0 / 62 + 1.0 / 61)) < 1e-12)
        #expect(KeywordIndex.queryWords("What's the Wi-Fi \"password\" OR NOT?") == ["wi", "fi", "password"])
        // Only function words: they are kept, or nothing would match.
        #expect(KeywordIndex.queryWords("Who is it?") == ["who", "is", "it"])
        #expect(KeywordIndex.queryWords("?!").isEmpty)
    }

    @Test("An index persists: a new SDK instance on the same home finds the same results")
    func indexPersists() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-rag-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        func sdk() throws -> RunAnywhereSDK {
            let sdk = try RunAnywhereSDK(home: home, modules: [DeterministicBackend()])
            try registerDeterministicModels(in: sdk)
            return sdk
        }
        let first = try sdk()
        let index = try await first.createRAGIndex("kept", embeddingModel: DeterministicModels.embedding)
        for document in corpus { try await index.ingest(documentId: document.id, text: document.text) }
        let before = try await index.search("spare key in the hall", options: RAGSearchOptions(topK: 4))
        await index.close()
        await first.shutdown()

        let second = try sdk()
        #expect(second.ragIndexNames() == ["kept"])
        let reopened = try await second.openRAGIndex("kept")
        let after = try await reopened.search("spare key in the hall", options: RAGSearchOptions(topK: 4))
        #expect(after == before)
        let stats = try await reopened.stats()
        #expect(stats.documents == corpus.count)
        #expect(stats.embeddingModel == DeterministicModels.embedding)
        #expect(stats.chunking == RAGChunkingOptions())
        await second.shutdown()
    }

    @Test("Two handles on one index see each other's writes, and concurrent ingests both land")
    func twoWritersShareAnIndex() async throws {
        try await withDeterministicSDK { sdk in
            let a = try await sdk.createRAGIndex("shared", embeddingModel: DeterministicModels.embedding)
            let b = try await sdk.openRAGIndex("shared")
            _ = try await b.search("anything", options: RAGSearchOptions(mode: .vector))  // loads b's vectors
            async let first: Void = {
                for document in corpus.prefix(2) { try await a.ingest(documentId: document.id, text: document.text) }
            }()
            async let second: Void = {
                for document in corpus.suffix(2) { try await b.ingest(documentId: document.id, text: document.text) }
            }()
            _ = try await (first, second)
            for index in [a, b] {
                #expect(try await index.documentIds() == corpus.map(\.id).sorted())
                let hits = try await index.search(
                    "tomatoes roses compost",
                    options: RAGSearchOptions(topK: 1, mode: .vector)
                )
                #expect(hits.first?.documentId == "garden")
            }
        }
    }

    @Test("Chunks respect the token budget, end at sentences, overlap, and cover the document")
    func chunkingRules() async throws {
        // Six-word sentences: three fit a chunk, one is carried over.
        let options = RAGChunkingOptions(chunkTokens: 20, overlapTokens: 6)
        let chunker = RAGChunker(options: options) { texts throws(SDKException) in
            texts.map { DeterministicEmbeddingsServiceWords.count($0) }
        }
        let sentences = (1...30).map { "Sentence number \($0) has six words." }
        let text = sentences.prefix(10).joined(separator: " ") + "\n\n" + sentences.suffix(20).joined(separator: " ")
        let chunks = try await chunker.chunks(of: text)
        #expect(chunks.count > 5)
        for chunk in chunks {
            #expect(chunk.tokens <= 20)
            #expect(chunk.text.hasSuffix("."))
            #expect(chunk.text.hasPrefix("Sentence"))
        }
        for (earlier, later) in zip(chunks, chunks.dropFirst()) {
            #expect(later.start < earlier.end)  // overlap
            #expect(later.start > earlier.start)
        }
        #expect(chunks.first?.start == 0)
        #expect(chunks.last?.end == text.utf8.count)

        // A sentence longer than a chunk is cut between words.
        let long = Array(repeating: "word", count: 50).joined(separator: " ")
        let pieces = try await chunker.chunks(of: long)
        #expect(pieces.count >= 3)
        #expect(pieces.allSatisfy { $0.tokens <= 20 && !$0.text.hasPrefix(" ") })
    }

    @Test("Citations [n] map to the sources the model was shown")
    func citationsMapToSources() {
        let sources = ["a", "b", "c"].enumerated().map { index, id in
            RAGSearchResult(
                documentId: id,
                chunkId: Int64(index),
                ordinal: 0,
                score: 1,
                text: id,
                startOffset: 0,
                endOffset: 1
            )
        }
        let citations = RAGAnswer.citations(
            in: "It is 4711 [2]. Also [3][2] and [1, 3]; not [9] or [x].",
            sources: sources
        )
        #expect(citations.map(\.number) == [2, 3, 1])
        #expect(citations.map(\.documentId) == ["b", "c", "a"])
    }

    @Test("query answers with the sources it retrieved; queryStream delivers sources, tokens, then the answer")
    func queryAndStream() async throws {
        try await withIndex { sdk, index in
            await expectCode(.modelNotLoaded) { _ = try await index.query("What is the door code?") }
            let options = RAGQueryOptions(model: DeterministicModels.llm)
            let answer = try await index.query("What is the fridge door code?", options: options)
            #expect(answer.sources.first?.documentId == "fridge")
            #expect(answer.generation.generatedTokens > 0)
            #expect(!answer.text.isEmpty)
            var events: [RAGQueryEvent] = []
            for try await event in try await index.queryStream("What is the fridge door code?", options: options) {
                events.append(event)
            }
            guard case .sources(let sources) = events.first, case .completed(let streamed) = events.last else {
                Issue.record("unexpected events \(events)")
                return
            }
            #expect(sources == answer.sources)
            let text = events.compactMap { if case .token(let piece) = $0 { piece } else { nil } }.joined()
            #expect(text == streamed.text)
            #expect(await sdk.currentLLMModel?.id == DeterministicModels.llm)
        }
    }

    @Test("Ingesting files: text, Markdown and JSONL keep their ids; a bad file ingests nothing")
    func ingestFiles() async throws {
        try await withDeterministicSDK { sdk in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ra-docs-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent("sub"),
                withIntermediateDirectories: true
            )
            try "# Boiler\nThe boiler pressure should read 1.5 bar.".write(
                to: folder.appendingPathComponent("sub/boiler.md"),
                atomically: true,
                encoding: .utf8
            )
            try "Bins go out on Tuesday night.".write(
                to: folder.appendingPathComponent("bins.txt"),
                atomically: true,
                encoding: .utf8
            )
            try Data([0x89, 0x50, 0x4E, 0x47]).write(to: folder.appendingPathComponent("image.png"))
            let lines = """
                {"id": "d1", "title": "Plants", "text": "Ferns like shade.", "metadata": {"room": "hall"}}
                {"id": "d2", "title": "Clock", "text": "The clock is five minutes fast."}
                """
            try lines.write(to: folder.appendingPathComponent("more.jsonl"), atomically: true, encoding: .utf8)
            let index = try await sdk.createRAGIndex("files", embeddingModel: DeterministicModels.embedding)
            let progress = ProgressLog()
            let results = try await index.ingest(files: [folder]) { done, total in progress.add(done, total) }
            #expect(results.map(\.documentId) == ["bins.txt", "d1", "d2", "sub/boiler.md"])
            #expect(progress.values.last == [4, 4])
            let boiler = try await index.search("boiler pressure", options: RAGSearchOptions(topK: 1, mode: .bm25))
            #expect(boiler.first?.title == "Boiler")
            let ferns = try await index.search("ferns", options: RAGSearchOptions(topK: 1, filter: ["room": "hall"]))
            #expect(ferns.first?.documentId == "d1")

            // Non-UTF-8, binary and broken JSONL: typed errors, nothing added.
            let latin1 = folder.appendingPathComponent("latin1.txt")
            try Data("caf\u{e9}".data(using: .isoLatin1)!).write(to: latin1)
            let binary = folder.appendingPathComponent("binary.txt")
            try Data([0x68, 0x69, 0x00, 0x01]).write(to: binary)
            let broken = folder.appendingPathComponent("broken.jsonl")
            try "{\"id\": \"ok\", \"text\": \"fine\"}\n{\"id\": 3}\n".write(
                to: broken,
                atomically: true,
                encoding: .utf8
            )
            for bad in [latin1, binary, broken, folder.appendingPathComponent("image.png")] {
                await expectCode(.invalidDocument) { try await index.ingest(files: [bad]) }
            }
            await expectCode(.invalidInput) {
                try await index.ingest(files: [folder.appendingPathComponent("missing.txt")])
            }
            #expect(try await index.stats().documents == 4)
        }
    }

    @Test("Bad documents, names and queries are typed errors that change nothing")
    func badInput() async throws {
        try await withIndex { sdk, index in
            let before = try await index.stats()
            await expectCode(.invalidDocument) { try await index.ingest(documentId: "empty", text: "  \n ") }
            await expectCode(.invalidDocument) { try await index.ingest(documentId: "bin", text: "a\u{0}b") }
            await expectCode(.invalidDocument) { try await index.ingest(documentId: " ", text: "text") }
            await expectCode(.emptyText) { _ = try await index.search("  ") }
            await expectCode(.invalidInput) { _ = try await index.search("x", options: RAGSearchOptions(topK: 0)) }
            let rerank = RAGSearchOptions(reranker: .languageModel(candidates: 5))
            await expectCode(.modelNotLoaded) { _ = try await index.search("router", options: rerank) }
            try await sdk.loadModel(DeterministicModels.llm)
            await expectCode(.backendError) { _ = try await index.search("router", options: rerank) }
            await expectCode(.invalidInput) {
                _ = try await index.search("router", options: RAGSearchOptions(reranker: .languageModel(candidates: 0)))
            }
            #expect(try await index.stats() == before)
            await expectCode(.invalidInput) { _ = try await sdk.createRAGIndex("../escape") }
            await expectCode(.invalidInput) { _ = try await sdk.createRAGIndex(".hidden") }
            await expectCode(.indexAlreadyExists) {
                _ = try await sdk.createRAGIndex("notes", embeddingModel: DeterministicModels.embedding)
            }
            await expectCode(.indexNotFound) { _ = try await sdk.openRAGIndex("nope") }
            await expectCode(.indexNotFound) { try sdk.deleteRAGIndex("nope") }
            await expectCode(.invalidInput) {
                _ = try await sdk.createRAGIndex(
                    "bad-chunks",
                    embeddingModel: DeterministicModels.embedding,
                    chunking: RAGChunkingOptions(chunkTokens: 16, overlapTokens: 8)
                )
            }
            await expectCode(.invalidInput) {
                _ = try await sdk.createRAGIndex("llm-index", embeddingModel: DeterministicModels.llm)
            }
            #expect(sdk.ragIndexNames() == ["notes"])
        }
    }

    @Test("An index built with vectors of another dimension refuses to ingest or search by vector")
    func dimensionMismatch() async throws {
        try await withIndex { sdk, index in
            await index.close()
            let file = sdk.paths.ragIndexDirectory(name: "notes").appendingPathComponent("index.sqlite")
            let queue = try DatabaseQueue(path: file.path)
            try await queue.write { db in try db.execute(sql: "UPDATE meta SET value = '128' WHERE key = 'dimension'") }
            try queue.close()
            let reopened = try await sdk.openRAGIndex("notes")
            await expectCode(.embeddingMismatch) {
                try await reopened.ingest(documentId: "new", text: "Some new text.")
            }
            await expectCode(.embeddingMismatch) {
                _ = try await reopened.search("router", options: RAGSearchOptions(mode: .vector))
            }
            #expect(
                try await reopened.search("router", options: RAGSearchOptions(mode: .bm25)).first?.documentId == "wifi"
            )
            #expect(try await reopened.stats().documents == corpus.count)
        }
    }

    @Test("A corrupted database is reported, left untouched, and repair rebuilds an empty index beside it")
    func corruptionAndRepair() async throws {
        try await withIndex { sdk, index in
            await index.close()
            let file = sdk.paths.ragIndexDirectory(name: "notes").appendingPathComponent("index.sqlite")
            let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try FileManager.default.removeItem(atPath: file.path + "-wal")
            try? FileManager.default.removeItem(atPath: file.path + "-shm")
            try garbage.write(to: file)
            await expectCode(.indexCorrupted) { _ = try await sdk.openRAGIndex("notes") }
            #expect(try Data(contentsOf: file) == garbage)
            let report = try await sdk.repairRAGIndex("notes")
            #expect(report.rebuilt)
            #expect(!report.problems.isEmpty)
            let damaged = try #require(report.damagedFile)
            #expect(try Data(contentsOf: URL(fileURLWithPath: damaged)) == garbage)
            let rebuilt = try await sdk.openRAGIndex("notes")
            #expect(try await rebuilt.stats().documents == 0)
            #expect(try await rebuilt.stats().chunking == RAGChunkingOptions(chunkTokens: 16, overlapTokens: 4))
            try await rebuilt.ingest(documentId: "again", text: "The router is back.")
            #expect(try await rebuilt.search("router").first?.documentId == "again")
            // A healthy index passes the check unchanged.
            let healthy = try await sdk.repairRAGIndex("notes")
            #expect(!healthy.rebuilt)
            #expect(healthy.problems.isEmpty)
        }
    }

    @Test("A full disk (a size quota here) fails the ingest and leaves the index as it was")
    func fullDiskLosesNothing() async throws {
        try await withIndex { sdk, index in
            let before = try await index.stats()
            await index.close()
            let limited = try await sdk.openRAGIndex("notes", maxDatabaseBytes: before.databaseBytes + 16_384)
            let big = (0..<400).map { "Line \($0) talks about router firmware version \($0 * 7) in detail." }
                .joined(separator: " ")
            await expectCode(.insufficientStorage) { try await limited.ingest(documentId: "big", text: big) }
            let after = try await limited.stats()
            #expect(after.documents == before.documents)
            #expect(after.chunks == before.chunks)
            #expect(try await limited.search("router password").first?.documentId == "wifi")
        }
    }

    @Test("A 10 MB document is chunked within the budget")
    func tenMegabyteDocument() async throws {
        try await withDeterministicSDK { sdk in
            let index = try await sdk.createRAGIndex(
                "big",
                embeddingModel: DeterministicModels.embedding,
                chunking: RAGChunkingOptions(chunkTokens: 256, overlapTokens: 16)
            )
            var text = ""
            text.reserveCapacity(10_500_000)
            var n = 0
            while text.utf8.count < 10_000_000 {
                text +=
                    "Paragraph \(n % 1009) mentions item \(n % 977) and colour \(n % 13) in one longer sentence here. "
                if n % 9 == 8 { text += "\n\n" }
                n += 1
            }
            text += "The needle word is zanzibar."
            let result = try await index.ingest(documentId: "huge", text: text)
            #expect(result.chunks > 1000)
            let hit = try await index.search("zanzibar", options: RAGSearchOptions(topK: 1, mode: .bm25))
            #expect(hit.first?.text.contains("zanzibar") == true)
        }
    }
}

/// Word counts as the deterministic embedding model counts tokens.
private enum DeterministicEmbeddingsServiceWords {
    static func count(_ text: String) -> Int {
        text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).count
    }
}

private final class ProgressLog: Sendable {
    private let log = Mutex<[[Int]]>([])
    func add(_ done: Int, _ total: Int) { log.withLock { $0.append([done, total]) } }
    var values: [[Int]] { log.withLock { $0 } }
}

@Suite("Reranking RAG search results on the deterministic backend")
struct RAGRerankTests {
    static let passages = [
        "Water the tomatoes every morning in summer.",
        "The wifi password is printed under the router.",
        "Restart the router when the wifi stalls.",
        "The spare key hangs in the hall.",
    ]

    @Test("RAG search with a cross-encoder returns the first stage's candidates in the reranker's order")
    func ragCrossEncoder() async throws {
        try await withDeterministicSDK { sdk in
            let index = try await sdk.createRAGIndex("house", embeddingModel: DeterministicModels.embedding)
            for (number, passage) in Self.passages.enumerated() {
                try await index.ingest(documentId: "p\(number)", text: passage)
            }
            let options = RAGSearchOptions(topK: 2, mode: .bm25, reranker: .crossEncoder(candidates: 4))
            await expectCode(.modelNotLoaded) { _ = try await index.search("wifi router password", options: options) }
            try await sdk.loadRerankModel(DeterministicModels.reranker)
            let response = try await index.searchWithTimings("wifi router password", options: options)
            #expect(response.results.map(\.documentId) == ["p1", "p2"])
            #expect(response.results.map(\.score) == [1, Double(Float(2.0 / 3))])
        }
    }
}
