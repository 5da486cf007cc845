@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// Creates an empty RAG index in `rag/<name>/` under the SDK home.
    ///
    /// The embedding model is loaded once to learn its dimension; the index remembers the
    /// model and loads it again whenever it embeds.
    ///
    /// ```swift
    /// let index = try await sdk.createRAGIndex("manuals", embeddingModel: "all-minilm-l6-v2")
    /// try await index.ingest(files: [URL(fileURLWithPath: "docs/")])
    /// ```
    ///
    /// - Throws: `.invalidInput` for a bad name or chunking, `.indexAlreadyExists`,
    ///   `.modelNotFound` or `.invalidInput` when the model is not an embedding model.
    public func createRAGIndex(
        _ name: String,
        embeddingModel: String = RAGIndex.defaultEmbeddingModel,
        chunking: RAGChunkingOptions = RAGChunkingOptions()
    ) async throws(SDKException) -> RAGIndex {
        try Self.validateIndexName(name)
        try chunking.validate()
        let folder = paths.ragIndexDirectory(name: name)
        guard !FileManager.default.fileExists(atPath: folder.path) else {
            throw SDKException(
                .indexAlreadyExists,
                "A RAG index named '\(name)' already exists",
                recovery: "Open it with openRAGIndex(\"\(name)\"), or delete it first"
            )
        }
        try await loadEmbeddingModel(embeddingModel)
        guard let info = await embeddingModelInfo else {
            throw SDKException(.modelNotLoaded, "The embedding model '\(embeddingModel)' did not stay loaded")
        }
        let settings = RAGStoreSettings(
            name: name,
            embeddingModel: embeddingModel,
            dimension: info.dimension,
            chunking: chunking
        )
        // Built aside and renamed into place: an index folder is complete or absent.
        let staging = paths.ragDirectory.appendingPathComponent(".creating-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
            let store = try RAGStore(
                url: staging.appendingPathComponent(SDKPaths.ragDatabaseFileName),
                create: settings
            )
            store.close()
            try Self.writeSettings(settings, to: staging)
            try FileManager.default.moveItem(at: staging, to: folder)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            if FileManager.default.fileExists(atPath: folder.path) {
                throw SDKException(.indexAlreadyExists, "A RAG index named '\(name)' was created meanwhile")
            }
            throw SDKException.wrap(error, as: .fileSystemError, "Cannot create the RAG index '\(name)'")
        }
        return try await openRAGIndex(name)
    }

    /// Opens an existing RAG index.
    ///
    /// - Parameters:
    ///   - name: The index's name.
    ///   - maxDatabaseBytes: A quota: writes that would grow the database past it fail with
    ///     `.insufficientStorage` and change nothing, as on a full disk.
    /// - Throws: `.indexNotFound`, `.indexCorrupted` (the files are left untouched; see
    ///   ``repairRAGIndex(_:)``).
    public func openRAGIndex(_ name: String, maxDatabaseBytes: Int64? = nil) async throws(SDKException) -> RAGIndex {
        try Self.validateIndexName(name)
        let database = paths.ragDatabaseFile(name: name)
        guard FileManager.default.fileExists(atPath: database.path) else {
            throw SDKException(
                .indexNotFound,
                "No RAG index named '\(name)'",
                recovery: "Create it first: createRAGIndex(\"\(name)\") or `runanywhere rag create \(name)`"
            )
        }
        let store = try RAGStore(url: database, create: nil, maxBytes: maxDatabaseBytes)
        do {
            let settings = try await store.settings()
            return RAGIndex(sdk: self, store: store, settings: settings)
        } catch {
            store.close()
            throw error
        }
    }

    /// The names of the RAG indexes under the SDK home, sorted.
    public func ragIndexNames() -> [String] {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: paths.ragDirectory.path)) ?? []
        return folders.filter { name in
            !name.hasPrefix(".")
                && FileManager.default.fileExists(
                    atPath: paths.ragDatabaseFile(name: name).path
                )
        }.sorted()
    }

    /// Deletes a RAG index and its folder.
    ///
    /// - Throws: `.indexNotFound`, `.fileSystemError`.
    public func deleteRAGIndex(_ name: String) throws(SDKException) {
        try Self.validateIndexName(name)
        let folder = paths.ragIndexDirectory(name: name)
        guard FileManager.default.fileExists(atPath: folder.path) else {
            throw SDKException(.indexNotFound, "No RAG index named '\(name)'")
        }
        // Renamed away first, so a half-deleted index is never found under its name.
        let doomed = paths.ragDirectory.appendingPathComponent(".deleting-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.moveItem(at: folder, to: doomed)
            try FileManager.default.removeItem(at: doomed)
        } catch {
            throw SDKException(.fileSystemError, "Cannot delete the RAG index '\(name)'", underlying: error)
        }
    }

    /// Checks a RAG index and repairs what can be repaired.
    ///
    /// A readable database gets SQLite's integrity check (its keyword postings are rebuilt
    /// from the chunks at every open anyway). A database that cannot be read is moved aside
    /// (`index.sqlite.damaged-…`) and replaced by an empty index with the same settings (kept
    /// in `index.json`); its documents must then be ingested again.
    public func repairRAGIndex(_ name: String) async throws(SDKException) -> RAGRepairReport {
        try Self.validateIndexName(name)
        let folder = paths.ragIndexDirectory(name: name)
        let database = paths.ragDatabaseFile(name: name)
        guard FileManager.default.fileExists(atPath: folder.path) else {
            throw SDKException(.indexNotFound, "No RAG index named '\(name)'")
        }
        var problems: [String]
        do {
            let store = try RAGStore(url: database, create: nil)
            defer { store.close() }
            _ = try await store.settings()
            problems = try await store.checkIntegrity()
            if problems.isEmpty { return RAGRepairReport(name: name, problems: [], rebuilt: false, damagedFile: nil) }
        } catch {
            problems = [String(describing: error)]
        }
        let settings = try Self.readSettings(in: folder, name: name)
        let stamp = Int(Date().timeIntervalSince1970)
        let damaged = folder.appendingPathComponent("\(SDKPaths.ragDatabaseFileName).damaged-\(stamp)")
        do {
            if FileManager.default.fileExists(atPath: database.path) {
                try FileManager.default.moveItem(at: database, to: damaged)
            }
            for suffix in ["-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: database.path + suffix)
            }
            let store = try RAGStore(url: database, create: settings)
            store.close()
        } catch {
            throw SDKException.wrap(error, as: .fileSystemError, "Cannot rebuild the RAG index '\(name)'")
        }
        return RAGRepairReport(name: name, problems: problems, rebuilt: true, damagedFile: damaged.path)
    }

    static func validateIndexName(_ name: String) throws(SDKException) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !name.isEmpty, name.count <= 64, !name.hasPrefix("."), name.allSatisfy(allowed.contains) else {
            throw SDKException(
                .invalidInput,
                "'\(name)' is not a valid index name",
                recovery: "Use 1–64 letters, digits, '.', '_' or '-', not starting with '.'"
            )
        }
    }

    private static func writeSettings(_ settings: RAGStoreSettings, to folder: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(settings).write(to: folder.appendingPathComponent("index.json"), options: .atomic)
    }

    private static func readSettings(in folder: URL, name: String) throws(SDKException) -> RAGStoreSettings {
        do {
            let data = try Data(contentsOf: folder.appendingPathComponent("index.json"))
            return try JSONDecoder().decode(RAGStoreSettings.self, from: data)
        } catch {
            throw SDKException(
                .indexCorrupted,
                "The settings of RAG index '\(name)' (index.json) are unreadable too",
                recovery: "Delete the index and create it again",
                underlying: error
            )
        }
    }
}

extension RunAnywhere {
    /// Creates an empty RAG index in `rag/<name>/` under the SDK home.
    ///
    /// Calls `RunAnywhereSDK.createRAGIndex(_:embeddingModel:chunking:)` on the shared instance.
    public static func createRAGIndex(
        _ name: String,
        embeddingModel: String = RAGIndex.defaultEmbeddingModel,
        chunking: RAGChunkingOptions = RAGChunkingOptions()
    ) async throws(SDKException) -> RAGIndex {
        try await sdk().createRAGIndex(name, embeddingModel: embeddingModel, chunking: chunking)
    }

    /// Opens an existing RAG index.
    ///
    /// Calls `RunAnywhereSDK.openRAGIndex(_:maxDatabaseBytes:)` on the shared instance.
    public static func openRAGIndex(
        _ name: String,
        maxDatabaseBytes: Int64? = nil
    ) async throws(SDKException)
        -> RAGIndex
    {
        try await sdk().openRAGIndex(name, maxDatabaseBytes: maxDatabaseBytes)
    }

    /// The names of the shared instance's RAG indexes.
    ///
    /// Calls `RunAnywhereSDK.ragIndexNames()` on the shared instance.
    public static func ragIndexNames() throws(SDKException) -> [String] {
        try sdk().ragIndexNames()
    }

    /// Deletes a RAG index.
    ///
    /// Calls `RunAnywhereSDK.deleteRAGIndex(_:)` on the shared instance.
    public static func deleteRAGIndex(_ name: String) throws(SDKException) {
        try sdk().deleteRAGIndex(name)
    }

    /// Checks a RAG index and repairs what can be repaired.
    ///
    /// Calls `RunAnywhereSDK.repairRAGIndex(_:)` on the shared instance.
    public static func repairRAGIndex(_ name: String) async throws(SDKException) -> RAGRepairReport {
        try await sdk().repairRAGIndex(name)
    }
}
