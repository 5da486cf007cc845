import Foundation
import GRDB
import RunAnywhereTestSupport
import RunAnywhereTesting
import Testing

@_spi(Backend) @testable import RunAnywhere
@testable import RunAnywhereRAG

/// The repository's own prose and code: real English text of every kind of word
/// (inflections, identifiers, numbers, punctuation), present in every clone.
private func projectTexts() throws -> [(name: String, text: String)] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    var files = [root.appendingPathComponent("README.md")]
    let sources = root.appendingPathComponent("Sources/RunAnywhere")
    if let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) {
        for case let url as URL in walker where url.pathExtension == "swift" { files.append(url) }
    }
    return try files.sorted { $0.path < $1.path }.map {
        ($0.lastPathComponent, try String(contentsOf: $0, encoding: .utf8))
    }
}

/// Words with accents, capitals, digits and other scripts, where tokenizers tend to differ.
private let unusualText = """
    Café CRÈME naïve résumé Ångström façade Zürich São Paulo Øresund déjà-vu coöperate \
    Straße 2.4bar 15000km x86_64 iPhone's O'Neill e-mail ÉCOLE Ελληνικά Привет мир 東京タワー 한국어 \
    caresses ponies ties cats feed agreed plastered motoring sing conflated troubled sized hopping \
    tanned falling hissing fizzed failing filing happy sky relational conditional rational valenci \
    digitizer conformabli radicalli differentli vileli analogousli vietnamization predication operator \
    feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative \
    formalize electriciti electrical hopeful goodness revival allowance inference airliner gyroscopic \
    adjustable defensible irritant replacement adjustment dependent adoption homologou communism activate \
    angulariti homologous effective bowdlerize probate rate cease controll roll generalizations oscillators \
    aed yed ying eed bleed sses ies ss is as us aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaations
    """

@Suite("Keyword index (in-memory BM25)")
struct KeywordIndexTests {
    @Test("Terms are exactly the ones SQLite FTS5 makes, for every word of the project's own sources")
    func termsMatchFTS5() throws {
        let texts = try projectTexts() + [("unusual", unusualText)]
        #expect(texts.count > 50)
        let db = try DatabaseQueue()
        let expected: [[String]] = try db.write { db in
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2');
                    CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');
                    """
            )
            for (row, text) in texts.enumerated() {
                try db.execute(sql: "INSERT INTO t(rowid, x) VALUES (?, ?)", arguments: [row + 1, text.text])
            }
            return try texts.indices.map { row in
                try String.fetchAll(db, sql: "SELECT term FROM v WHERE doc = ? ORDER BY offset", arguments: [row + 1])
            }
        }
        var compared = 0
        for (text, fts) in zip(texts, expected) {
            let ours = KeywordTokenizer.terms(text.text)
            compared += fts.count
            guard ours != fts else { continue }
            let first =
                zip(ours, fts).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(ours.count, fts.count)
            let mine = ours[first..<min(first + 3, ours.count)]
            let theirs = fts[first..<min(first + 3, fts.count)]
            Issue.record(
                "\(text.name): \(ours.count) terms vs FTS5's \(fts.count); first difference at \(first): \(mine) vs \(theirs)"
            )
        }
        #expect(compared > 50_000)
    }

    /// SQLite FTS5's own BM25 ranking of `query` over the index's chunks as they are now (the
    /// reference the in-memory index is held to), scores negated so higher is better.
    func ftsBM25(_ index: RAGIndex, _ query: String, limit: Int) async throws -> [(id: Int64, score: Double)] {
        let store = await index.store
        let rows = try await DatabaseQueue(path: store.url.path).read { db in
            try Row.fetchAll(db, sql: "SELECT id, text FROM chunks").map { ($0["id"] as Int64, $0["text"] as String) }
        }
        let reference = try DatabaseQueue()
        let words = KeywordIndex.queryWords(query).map { "\"\($0)\"" }.joined(separator: " OR ")
        return try await reference.write { db in
            try db.execute(
                sql: "CREATE VIRTUAL TABLE ref USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')"
            )
            for row in rows {
                try db.execute(
                    sql: "INSERT INTO ref(rowid, text) VALUES (?, ?)",
                    arguments: [row.0, row.1]
                )
            }
            return try Row.fetchAll(
                db,
                sql: "SELECT rowid AS id, rank FROM ref WHERE ref MATCH ? ORDER BY rank LIMIT ?",
                arguments: [words, limit]
            ).map { ($0["id"], -($0["rank"] as Double)) }
        }
    }

    @Test("BM25 from memory gives SQLite FTS5's scores, through ingest, replace and delete")
    func scoresMatchFTS5() async throws {
        let readme = try projectTexts().first { $0.name == "README.md" }!.text
        let sections = readme.components(separatedBy: "\n## ").filter { !$0.isEmpty }
        #expect(sections.count > 5)
        let queries = [
            "How do I run the tests on a fresh machine?", "resumable downloads of models by URL",
            "speech to text with whisper", "OpenAI compatible server", "convert the embedding model",
            "install engines with apt-get", "voice agent barge-in latency", "structured output JSON schema",
            "benchmarks tokens per second", "RAG index hybrid search citations", "tool calling", "the",
        ]
        try await withDeterministicSDK { sdk in
            let index = try await sdk.createRAGIndex(
                "readme",
                embeddingModel: DeterministicModels.embedding,
                chunking: RAGChunkingOptions(chunkTokens: 48, overlapTokens: 8)
            )
            func compare(_ index: RAGIndex, _ stage: String) async throws {
                for query in queries {
                    let ours = try await index.rank(
                        query,
                        vector: nil,
                        options: RAGSearchOptions(topK: 20, mode: .bm25)
                    )
                    let fts = try await ftsBM25(index, query, limit: 20)
                    #expect(ours.count == fts.count, "\(stage) \(query)")
                    #expect(!ours.isEmpty, "\(stage) \(query)")
                    for (mine, theirs) in zip(ours, fts) {
                        #expect(abs(mine.score - theirs.score) <= 1e-12 * abs(theirs.score), "\(stage) \(query)")
                    }
                    // Ties may come in either order; every chunk ranked above the last score is the same.
                    let floor = fts.last?.score ?? 0
                    #expect(
                        Set(ours.filter { $0.score > floor + 1e-9 }.map(\.chunkId))
                            == Set(fts.filter { $0.score > floor + 1e-9 }.map(\.id)),
                        "\(stage) \(query)"
                    )
                }
            }
            for (number, section) in sections.enumerated() {
                try await index.ingest(documentId: "s\(number)", text: section)
            }
            try await compare(index, "ingested")
            // Kept up to date in place by this handle's writes.
            try await index.ingest(documentId: "s0", text: sections[1] + " " + sections[2])
            try await index.delete(documentId: "s3")
            try await compare(index, "changed")
            // Built from the database by another handle.
            let other = try await sdk.openRAGIndex("readme")
            try await compare(other, "reopened")
        }
    }

    @Test("Removing and replacing chunks, with compaction, ranks as an index built from the rest")
    func removalsAndCompaction() {
        var random = SplitMix(seed: 7)
        let words = (0..<400).map { "word\($0)" }
        func text() -> String {
            (0..<(5 + Int(random.next() % 30))).map { _ in words[Int(pow(400.0, random.nextUnit())) - 1] }
                .joined(separator: " ")
        }
        var texts: [Int64: String] = [:]
        var index = KeywordIndex()
        for id in 1...3_000 {
            texts[Int64(id)] = text()
            index.add(Int64(id), text: texts[Int64(id)]!)
        }
        // 2,000 removals cross the compaction point; 100 replacements re-add ids.
        let removed = (1...3_000).filter { $0 % 3 != 0 }.map(Int64.init)
        index.remove(removed)
        for id in removed { texts[id] = nil }
        for id in stride(from: 3, through: 300, by: 3) {
            texts[Int64(id)] = text()
            index.add(Int64(id), text: texts[Int64(id)]!)
        }
        var fresh = KeywordIndex()
        for id in texts.keys.sorted() { fresh.add(id, text: texts[id]!) }
        #expect(index.count == 1_000)
        #expect(fresh.count == 1_000)
        for query in ["word0 word5", "word17", "word1 word2 word3 word350", "word399", "missing"] {
            let terms = KeywordIndex.queryTerms(query)
            let a = index.search(terms, k: 15)
            let b = fresh.search(terms, k: 15)
            #expect(a.map(\.score) == b.map(\.score), "\(query)")
            let floor = b.last?.score ?? 0
            #expect(Set(a.filter { $0.score > floor }.map(\.id)) == Set(b.filter { $0.score > floor }.map(\.id)))
            let allowed: Set<Int64> = [3, 6, 9, 12, 999]
            #expect(index.search(terms, k: 15, allowed: allowed).allSatisfy { allowed.contains($0.id) })
        }
        #expect(index.search(["word1"], k: 0).isEmpty)
    }

    @Test("An index that kept an FTS5 copy of its chunks loses it at its next open, and keeps its documents and search")
    func oldKeywordTableIsDropped() async throws {
        try await withDeterministicSDK { sdk in
            let index = try await sdk.createRAGIndex("old", embeddingModel: DeterministicModels.embedding)
            try await index.ingest(documentId: "d", text: "Whisper transcribes speech. Llama writes text.")
            let store = await index.store
            let url = store.url
            await index.close()
            // What indexes made before carried: a copy of every chunk, kept by triggers.
            try await DatabaseQueue(path: url.path).write { db in
                try db.execute(
                    sql: """
                        CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='chunks', content_rowid='id');
                        CREATE TRIGGER chunks_added AFTER INSERT ON chunks BEGIN
                            INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
                        END;
                        """
                )
            }
            let reopened = try await sdk.openRAGIndex("old")
            let left = try await DatabaseQueue(path: url.path).read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'chunks_%'")
            }
            #expect(left == ["chunks_by_document"], "\(left)")
            let hits = try await reopened.search("speech", options: RAGSearchOptions(topK: 3, mode: .bm25))
            #expect(hits.first?.documentId == "d")
            try await reopened.ingest(documentId: "e", text: "More speech to write down.")
            #expect(try await reopened.stats().documents == 2)
            await reopened.close()
        }
    }
}
