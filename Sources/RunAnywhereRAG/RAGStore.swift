import Foundation
import GRDB
@_spi(Backend) import RunAnywhere

/// The SQLite database of one RAG index (Debian's libsqlite3 through GRDB): documents, chunks
/// with their vectors, the vector index and settings, in one file. The index keeps the logic
/// (chunking, embedding, search, fusion); the store only keeps the rows. Keyword search (BM25)
/// runs from memory (`KeywordIndex`), built from the chunks at open.
///
/// Every write is one transaction, so a crash or a full disk leaves the index as it was
/// before that document. The database runs in WAL mode with a busy timeout: a second
/// process that writes waits for the first instead of failing at once.
final class RAGStore: Sendable {
    static let schemaVersion = 1

    let url: URL
    private let pool: DatabasePool

    /// Opens (and with `create`, creates) the database at `url`.
    ///
    /// - Parameter maxBytes: a size the database may not grow past; writes beyond it fail
    ///   like a full disk (`.insufficientStorage`).
    init(
        url: URL,
        create: RAGStoreSettings?,
        maxBytes: Int64? = nil,
        busyTimeout: TimeInterval = 30
    ) throws(SDKException) {
        self.url = url
        let exists = FileManager.default.fileExists(atPath: url.path)
        if exists {
            // Never let SQLite (or WAL set-up) touch a file that is not a database.
            try Self.checkHeader(url)
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.foreignKeysEnabled = true
        configuration.label = "rag.\(url.deletingLastPathComponent().lastPathComponent)"
        if let maxBytes {
            configuration.prepareDatabase { db in
                let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
                try db.execute(sql: "PRAGMA max_page_count = \(max(16, maxBytes / pageSize))")
            }
        }
        do {
            pool = try DatabasePool(path: url.path, configuration: configuration)
            if let settings = create {
                try pool.write { db in try Self.createSchema(db, settings: settings) }
            } else {
                try Self.dropKeywordTable(pool)
            }
        } catch {
            throw Self.map(error, "Cannot open the RAG index at \(url.path)")
        }
    }

    // MARK: Schema

    /// Indexes made before keyword search moved to memory kept an FTS5 copy of every chunk,
    /// written on every ingest and read by nothing: dropped at the first open (a read when
    /// there is none, so opening stays a read).
    private static func dropKeywordTable(_ pool: DatabasePool) throws {
        let found = try pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM sqlite_master WHERE name = 'chunks_fts')") ?? false
        }
        guard found else { return }
        try pool.write { db in
            try db.execute(
                sql: """
                    DROP TRIGGER IF EXISTS chunks_added;
                    DROP TRIGGER IF EXISTS chunks_removed;
                    DROP TABLE IF EXISTS chunks_fts;
                    """
            )
        }
    }

    private static func createSchema(_ db: Database, settings: RAGStoreSettings) throws {
        try db.execute(
            sql: """
                CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE documents(
                    id TEXT PRIMARY KEY,
                    title TEXT,
                    metadata TEXT NOT NULL DEFAULT '{}',
                    bytes INTEGER NOT NULL,
                    chunks INTEGER NOT NULL,
                    tokens INTEGER NOT NULL,
                    ingested_at REAL NOT NULL
                );
                CREATE TABLE chunks(
                    id INTEGER PRIMARY KEY,
                    document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
                    ordinal INTEGER NOT NULL,
                    start_offset INTEGER NOT NULL,
                    end_offset INTEGER NOT NULL,
                    tokens INTEGER NOT NULL,
                    text TEXT NOT NULL,
                    embedding BLOB NOT NULL
                );
                CREATE INDEX chunks_by_document ON chunks(document_id, ordinal);
                CREATE TABLE vector_index(id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL, data BLOB NOT NULL);
                """
        )
        let values: [(String, String)] = [
            ("schema", String(schemaVersion)),
            ("name", settings.name),
            ("embedding_model", settings.embeddingModel),
            ("dimension", String(settings.dimension)),
            ("chunk_tokens", String(settings.chunking.chunkTokens)),
            ("overlap_tokens", String(settings.chunking.overlapTokens)),
            ("generation", "0"),
        ]
        for (key, value) in values {
            try db.execute(sql: "INSERT INTO meta(key, value) VALUES (?, ?)", arguments: [key, value])
        }
    }

    /// The settings stored in the database.
    func settings() async throws(SDKException) -> RAGStoreSettings {
        let meta: [String: String]
        do {
            meta = try await pool.read { db in
                let rows = try Row.fetchAll(db, sql: "SELECT key, value FROM meta")
                return Dictionary(uniqueKeysWithValues: rows.map { ($0["key"] as String, $0["value"] as String) })
            }
        } catch {
            throw Self.map(error, "Cannot read the RAG index at \(url.path)")
        }
        guard meta["schema"] == String(Self.schemaVersion), let name = meta["name"],
            let model = meta["embedding_model"], let dimension = meta["dimension"].flatMap(Int.init),
            let chunkTokens = meta["chunk_tokens"].flatMap(Int.init),
            let overlap = meta["overlap_tokens"].flatMap(Int.init)
        else {
            throw SDKException(
                .indexCorrupted,
                "\(url.path) is not a RAG index of schema \(Self.schemaVersion)",
                recovery: "Rebuild it: `runanywhere rag repair NAME`, then ingest the documents again"
            )
        }
        return RAGStoreSettings(
            name: name,
            embeddingModel: model,
            dimension: dimension,
            chunking: RAGChunkingOptions(chunkTokens: chunkTokens, overlapTokens: overlap)
        )
    }

    // MARK: Writes

    /// Replaces (or adds) one document with its chunks, in one transaction.
    ///
    /// - Returns: the generation after the write, the new chunks' ids in order, the ids of
    ///   the chunks it replaced, and whether a document was replaced.
    func replaceDocument(
        id: String,
        title: String?,
        metadata: [String: String],
        bytes: Int,
        chunks: [RAGStoreChunk]
    ) async throws(SDKException) -> (generation: Int64, added: [Int64], removed: [Int64], replaced: Bool) {
        let metadataJSON = Self.encode(metadata)
        do {
            return try await pool.write { db in
                let removed = try Int64.fetchAll(
                    db,
                    sql: "SELECT id FROM chunks WHERE document_id = ?",
                    arguments: [id]
                )
                let replaced =
                    try Bool.fetchOne(db, sql: "SELECT 1 FROM documents WHERE id = ?", arguments: [id]) ?? false
                try db.execute(sql: "DELETE FROM chunks WHERE document_id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM documents WHERE id = ?", arguments: [id])
                try db.execute(
                    sql: """
                        INSERT INTO documents(id, title, metadata, bytes, chunks, tokens, ingested_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        id, title, metadataJSON, bytes, chunks.count, chunks.reduce(0) { $0 + $1.tokens },
                        Date().timeIntervalSince1970,
                    ]
                )
                var added: [Int64] = []
                added.reserveCapacity(chunks.count)
                let insert = try db.makeStatement(
                    sql: """
                        INSERT INTO chunks(document_id, ordinal, start_offset, end_offset, tokens, text, embedding)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """
                )
                for (ordinal, chunk) in chunks.enumerated() {
                    try insert.execute(arguments: [
                        id, ordinal, chunk.start, chunk.end, chunk.tokens, chunk.text, Self.blob(chunk.vector),
                    ])
                    added.append(db.lastInsertedRowID)
                }
                let generation = try Self.bumpGeneration(db)
                return (generation, added, removed, replaced)
            }
        } catch {
            throw Self.map(error, "Cannot store document '\(id)'")
        }
    }

    /// Deletes a document and its chunks; returns the removed chunk ids and the new
    /// generation, or nil when there was no such document.
    func deleteDocument(id: String) async throws(SDKException) -> (generation: Int64, removed: [Int64])? {
        do {
            return try await pool.write { db in
                guard try Bool.fetchOne(db, sql: "SELECT 1 FROM documents WHERE id = ?", arguments: [id]) == true
                else { return nil }
                let removed = try Int64.fetchAll(
                    db,
                    sql: "SELECT id FROM chunks WHERE document_id = ?",
                    arguments: [id]
                )
                try db.execute(sql: "DELETE FROM chunks WHERE document_id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM documents WHERE id = ?", arguments: [id])
                return (try Self.bumpGeneration(db), removed)
            }
        } catch {
            throw Self.map(error, "Cannot delete document '\(id)'")
        }
    }

    private static func bumpGeneration(_ db: Database) throws -> Int64 {
        try db.execute(sql: "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")
        return try readGeneration(db)
    }

    private static func readGeneration(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'generation'") ?? 0
    }

    /// Stores the serialized approximate index built at `generation`.
    func saveVectorIndex(_ data: Data, generation: Int64) async throws(SDKException) {
        do {
            try await pool.write { db in
                try db.execute(
                    sql: "INSERT OR REPLACE INTO vector_index(id, generation, data) VALUES (1, ?, ?)",
                    arguments: [generation, data]
                )
            }
        } catch {
            throw Self.map(error, "Cannot save the vector index")
        }
    }

    // MARK: Reads

    /// Writes so far; every write adds one. Another process's write shows here.
    func generation() async throws(SDKException) -> Int64 {
        do {
            return try await pool.read { db in try Self.readGeneration(db) }
        } catch {
            throw Self.map(error, "Cannot read the RAG index")
        }
    }

    /// Every chunk's id and vector, in id order, with the generation they belong to.
    func allVectors(dimension: Int) async throws(SDKException) -> (generation: Int64, ids: [Int64], data: [Float]) {
        do {
            return try await pool.read { db in
                let generation = try Self.readGeneration(db)
                var ids: [Int64] = []
                var data: [Float] = []
                let cursor = try Row.fetchCursor(db, sql: "SELECT id, embedding FROM chunks ORDER BY id")
                while let row = try cursor.next() {
                    let blob: Data = row["embedding"]
                    guard blob.count == dimension * MemoryLayout<Float>.size else {
                        throw SDKException(
                            .indexCorrupted,
                            "Chunk \(row["id"] as Int64) has a vector of the wrong size"
                        )
                    }
                    ids.append(row["id"])
                    blob.withUnsafeBytes { raw in data.append(contentsOf: raw.bindMemory(to: Float.self)) }
                }
                return (generation, ids, data)
            }
        } catch {
            throw Self.map(error, "Cannot read the vectors of the RAG index")
        }
    }

    /// Keyword postings of every chunk's text, with the generation they belong to.
    func keywordIndex() async throws(SDKException) -> (generation: Int64, index: KeywordIndex) {
        do {
            return try await pool.read { db in
                let generation = try Self.readGeneration(db)
                var index = KeywordIndex()
                let cursor = try Row.fetchCursor(db, sql: "SELECT id, text FROM chunks ORDER BY id")
                while let row = try cursor.next() {
                    index.add(row["id"], text: row["text"])
                }
                return (generation, index)
            }
        } catch {
            throw Self.map(error, "Cannot read the chunks of the RAG index")
        }
    }

    /// The stored approximate index, if any, with the generation it was built at.
    func loadVectorIndex() async throws(SDKException) -> (generation: Int64, data: Data)? {
        do {
            return try await pool.read { db in
                guard let row = try Row.fetchOne(db, sql: "SELECT generation, data FROM vector_index WHERE id = 1")
                else { return nil }
                return (row["generation"], row["data"])
            }
        } catch {
            throw Self.map(error, "Cannot read the vector index")
        }
    }

    /// Ids of the documents whose metadata has every pair of `filter`.
    func documents(matching filter: [String: String]) async throws(SDKException) -> Set<String> {
        do {
            return try await pool.read { db in
                var sql = "SELECT id FROM documents WHERE 1"
                var arguments: [any DatabaseValueConvertible] = []
                for (key, value) in filter.sorted(by: { $0.key < $1.key }) {
                    sql += " AND json_extract(metadata, ?) = ?"
                    arguments += [Self.jsonPath(key), value]
                }
                return Set(try String.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)))
            }
        } catch {
            throw Self.map(error, "Filtering documents failed")
        }
    }

    /// The ids of every chunk of these documents.
    func chunkIds(inDocuments documents: Set<String>) async throws(SDKException) -> Set<Int64> {
        guard !documents.isEmpty else { return [] }
        do {
            return try await pool.read { db in
                let placeholders = Array(repeating: "?", count: documents.count).joined(separator: ",")
                return Set(
                    try Int64.fetchAll(
                        db,
                        sql: "SELECT id FROM chunks WHERE document_id IN (\(placeholders))",
                        arguments: StatementArguments(Array(documents))
                    )
                )
            }
        } catch {
            throw Self.map(error, "Filtering chunks failed")
        }
    }

    /// The chunks with these ids, with their documents' titles and metadata.
    func chunks(_ ids: [Int64]) async throws(SDKException) -> [Int64: RAGStoredChunk] {
        guard !ids.isEmpty else { return [:] }
        do {
            return try await pool.read { db in
                let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ",")
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT c.id, c.document_id, c.ordinal, c.start_offset, c.end_offset, c.text, d.title, d.metadata
                        FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id IN (\(placeholders))
                        """,
                    arguments: StatementArguments(ids)
                )
                var found: [Int64: RAGStoredChunk] = [:]
                for row in rows {
                    let id: Int64 = row["id"]
                    found[id] = RAGStoredChunk(
                        id: id,
                        documentId: row["document_id"],
                        ordinal: row["ordinal"],
                        start: row["start_offset"],
                        end: row["end_offset"],
                        text: row["text"],
                        title: row["title"],
                        metadata: Self.decode(row["metadata"] as String)
                    )
                }
                return found
            }
        } catch {
            throw Self.map(error, "Reading chunks failed")
        }
    }

    /// Documents, chunks and tokens.
    func counts() async throws(SDKException) -> (documents: Int, chunks: Int, tokens: Int) {
        do {
            return try await pool.read { db in
                let row = try Row.fetchOne(
                    db,
                    sql:
                        "SELECT COUNT(*) AS documents, COALESCE(SUM(chunks), 0) AS chunks, COALESCE(SUM(tokens), 0) AS tokens FROM documents"
                )
                return (row?["documents"] ?? 0, row?["chunks"] ?? 0, row?["tokens"] ?? 0)
            }
        } catch {
            throw Self.map(error, "Reading the index's statistics failed")
        }
    }

    /// The ids of every document, sorted.
    func documentIds() async throws(SDKException) -> [String] {
        do {
            return try await pool.read { db in try String.fetchAll(db, sql: "SELECT id FROM documents ORDER BY id") }
        } catch {
            throw Self.map(error, "Listing documents failed")
        }
    }

    /// SQLite's own consistency check.
    func checkIntegrity() async throws(SDKException) -> [String] {
        do {
            return try await pool.read { db in
                try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
            }
        } catch {
            throw Self.map(error, "Checking the index failed")
        }
    }

    /// Closes the database; the store is unusable afterwards.
    func close() {
        try? pool.close()
    }

    // MARK: Helpers

    private static func checkHeader(_ url: URL) throws(SDKException) {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw SDKException(.fileSystemError, "Cannot read \(url.path)")
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        // An empty file is what SQLite itself leaves before the first write.
        guard header.isEmpty || header == Data("SQLite format 3\0".utf8) else {
            throw SDKException(
                .indexCorrupted,
                "\(url.path) is not an SQLite database; the index was left untouched",
                recovery: "Rebuild it with `runanywhere rag repair NAME` (the damaged file is kept beside it)"
            )
        }
    }

    static func blob(_ vector: [Float]) -> Data {
        vector.withUnsafeBufferPointer { Data(buffer: $0) }
    }

    private static func encode(_ metadata: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(metadata)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    private static func decode(_ json: String) -> [String: String] {
        (try? JSONDecoder().decode([String: String].self, from: Data(json.utf8))) ?? [:]
    }

    /// `$."key"` with the key's quotes and backslashes escaped, so any key is a literal.
    private static func jsonPath(_ key: String) -> String {
        let escaped = key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "$.\"\(escaped)\""
    }

    /// SQLite failures as the SDK's codes.
    static func map(_ error: any Error, _ message: String) -> SDKException {
        if let sdk = error as? SDKException { return sdk }
        guard let database = error as? DatabaseError else {
            return SDKException(.fileSystemError, "\(message): \(error)", underlying: error)
        }
        switch database.resultCode {
        case .SQLITE_FULL:
            return SDKException(
                .insufficientStorage,
                "\(message): the disk (or the index's size limit) is full; nothing was written",
                recovery: "Free some space and ingest again",
                underlying: error
            )
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return SDKException(
                .indexBusy,
                "\(message): another process is writing to the index",
                recovery: "Try again when the other ingest has finished",
                underlying: error
            )
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return SDKException(
                .indexCorrupted,
                "\(message): the database is damaged",
                recovery: "Rebuild it with `runanywhere rag repair NAME` (the damaged file is kept beside it)",
                underlying: error
            )
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_IOERR, .SQLITE_PERM:
            return SDKException(.fileSystemError, "\(message): \(database.message ?? "I/O error")", underlying: error)
        default:
            return SDKException(.internalError, "\(message): \(database)", underlying: error)
        }
    }
}
