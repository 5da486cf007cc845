@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A persisted index of documents for retrieval-augmented generation.
///
/// An index is a folder under the SDK home, `rag/<name>/`, holding one SQLite database:
/// documents, their chunks with embedding vectors, the vector index and settings; BM25 keyword
/// search runs from an index in memory built from the chunks. Documents are cut into chunks of the embedding model's tokens at sentence
/// boundaries, embedded, and written in one transaction each: a crash or a full disk
/// mid-ingest leaves the index as it was before that document.
///
/// Search ranks chunks by BM25, by cosine similarity of embeddings (exact, SIMD, over
/// vectors loaded once), or by reciprocal rank fusion of the two (`.hybrid`, the default).
/// ``query(_:options:)`` retrieves sources and has the loaded language model answer from
/// them, citing `[1]`, `[2]`… which map back to documents.
///
/// ```swift
/// let index = try await sdk.createRAGIndex("notes")
/// try await index.ingest(documentId: "fridge", text: "The fridge code is 4711. ...")
/// let hits = try await index.search("what is the fridge code?", options: RAGSearchOptions(topK: 3))
/// try await sdk.loadModel("smollm2-135m-instruct")
/// let answer = try await index.query("What is the fridge code?")
/// print(answer.text, answer.citations.map(\.documentId))
/// ```
///
/// The index loads its embedding model into the SDK when it needs it (replacing another
/// embedding model). Several processes may use one index: writers wait for each other,
/// and a reader sees other processes' writes on its next search.
public actor RAGIndex {
    /// The index's name (its folder under `rag/`).
    public nonisolated let name: String
    /// The embedding model its vectors come from.
    public nonisolated let embeddingModel: String
    /// Length of its vectors.
    public nonisolated let dimension: Int
    /// How its documents are chunked.
    public nonisolated let chunking: RAGChunkingOptions

    private let sdk: RunAnywhereSDK
    let store: RAGStore
    /// The vectors as of `vectorsGeneration`; nil until the first vector search.
    private var vectors: VectorSearch?
    private var vectorsGeneration: Int64 = -1
    /// The keyword postings as of `keywordsGeneration`; nil until the first keyword search.
    private var keywords: KeywordIndex?
    private var keywordsGeneration: Int64 = -1
    /// Changes to the approximate graph since it was last saved.
    private var unsavedGraphChanges = 0
    /// From this many chunks on, vector search uses the approximate (HNSW) graph.
    private(set) var approximateThreshold = RAGIndex.defaultApproximateThreshold
    /// Beam width of approximate search; wider finds more of the true neighbours, slower.
    private(set) var searchBeam = 96
    private let logger = SDKLogger(category: "RAG")

    /// The embedding model new indexes use unless told otherwise: all-MiniLM-L6-v2 (384 dimensions).
    public static let defaultEmbeddingModel = "all-minilm-l6-v2"

    /// Chunks from which vector search switches from exact to approximate: exact search
    /// over 384-dimensional vectors stays within a few milliseconds up to about here.
    public static let defaultApproximateThreshold = 20_000

    /// How vector search runs.
    enum VectorSearch: Sendable {
        case exact(ExactVectorIndex)
        case approximate(HNSWIndex)

        var count: Int {
            switch self {
            case .exact(let index): index.count
            case .approximate(let index): index.count
            }
        }

        mutating func apply(removed: [Int64], added: [(Int64, [Float])]) {
            switch self {
            case .exact(var index):
                index.remove(removed)
                for (id, vector) in added { index.add(id, vector) }
                self = .exact(index)
            case .approximate(var index):
                for id in removed { index.remove(id) }
                for (id, vector) in added { index.add(id, vector) }
                self = .approximate(index)
            }
        }
    }

    /// Texts embedded per call while ingesting: bounds memory for huge documents.
    static let embeddingBatch = 64

    init(sdk: RunAnywhereSDK, store: RAGStore, settings: RAGStoreSettings) {
        self.sdk = sdk
        self.store = store
        self.name = settings.name
        self.embeddingModel = settings.embeddingModel
        self.dimension = settings.dimension
        self.chunking = settings.chunking
    }

    // MARK: Ingest

    /// Adds a document, or replaces the document with the same id.
    ///
    /// - Parameters:
    ///   - documentId: The document's id, kept as given; re-ingesting an id replaces it.
    ///   - text: The document's text.
    ///   - title: An optional title, returned with search results.
    ///   - metadata: Key/value pairs that searches can filter on.
    /// - Throws: `.invalidDocument` for an empty or binary text or an empty id,
    ///   `.embeddingMismatch` when the embedding model no longer gives this index's
    ///   dimension, `.insufficientStorage` when the disk is full, `.indexBusy` when another
    ///   process holds the index too long. The index is unchanged by a failed ingest.
    @discardableResult
    public func ingest(
        documentId: String,
        text: String,
        title: String? = nil,
        metadata: [String: String] = [:]
    ) async throws(SDKException) -> RAGIngestResult {
        try Self.validateDocument(id: documentId, text: text)
        let start = ContinuousClock.now
        try await ensureEmbeddingModel()
        let sdk = self.sdk
        let embeddings = try sdk.runtime().embeddings
        let chunker = RAGChunker(options: chunking) { texts throws(SDKException) in
            try await embeddings.tokenCounts(texts)
        }
        let pieces = try await chunker.chunks(of: text)
        guard !pieces.isEmpty else {
            throw SDKException(.invalidDocument, "Document '\(documentId)' has no text to index")
        }
        var embeddingMs = 0.0
        var chunks: [RAGStoreChunk] = []
        chunks.reserveCapacity(pieces.count)
        for batchStart in stride(from: 0, to: pieces.count, by: Self.embeddingBatch) {
            let batch = pieces[batchStart..<min(batchStart + Self.embeddingBatch, pieces.count)]
            let embedded = try await sdk.embeddings(for: batch.map(\.text))
            embeddingMs += embedded.durationMs
            guard embedded.dimension == dimension else { throw mismatch(embedded.dimension) }
            for (piece, vector) in zip(batch, embedded.vectors) {
                chunks.append(
                    RAGStoreChunk(
                        start: piece.start,
                        end: piece.end,
                        tokens: piece.tokens,
                        text: piece.text,
                        vector: vector
                    )
                )
            }
        }
        let written = try await store.replaceDocument(
            id: documentId,
            title: title,
            metadata: metadata,
            bytes: text.utf8.count,
            chunks: chunks
        )
        await applyToCaches(
            removed: written.removed,
            added: zip(written.added, chunks).map { ($0, $1.text, $1.vector) },
            generation: written.generation
        )
        let totalMs = start.duration(to: .now).milliseconds
        sdk.events.publish(
            .documentIngested(index: name, documentId: documentId, chunks: chunks.count, durationMs: totalMs)
        )
        return RAGIngestResult(
            documentId: documentId,
            chunks: chunks.count,
            tokens: chunks.reduce(0) { $0 + $1.tokens },
            replaced: written.replaced,
            embeddingMs: embeddingMs,
            storeMs: totalMs - embeddingMs
        )
    }

    /// Stores a document whose chunks are already embedded (benchmarks use it to build big
    /// indexes from synthetic vectors). Chunks are joined by blank lines for their offsets.
    package func ingestEmbedded(
        documentId: String,
        chunks: [(text: String, vector: [Float])]
    ) async throws(SDKException) {
        var offset = 0
        var rows: [RAGStoreChunk] = []
        for chunk in chunks {
            guard chunk.vector.count == dimension else { throw mismatch(chunk.vector.count) }
            let length = chunk.text.utf8.count
            rows.append(
                RAGStoreChunk(
                    start: offset,
                    end: offset + length,
                    tokens: 0,
                    text: chunk.text,
                    vector: chunk.vector
                )
            )
            offset += length + 2
        }
        let written = try await store.replaceDocument(
            id: documentId,
            title: nil,
            metadata: [:],
            bytes: max(0, offset - 2),
            chunks: rows
        )
        await applyToCaches(
            removed: written.removed,
            added: zip(written.added, rows).map { ($0, $1.text, $1.vector) },
            generation: written.generation
        )
    }

    /// Ingests files and folders: `.txt` and `.md` files become one document each (id: the
    /// path below the folder given, or the file name), `.jsonl` files one document per line
    /// (`{"id", "title", "text", "metadata"}`). Folders are walked recursively; other files
    /// in them are skipped.
    ///
    /// Every file is read and checked before anything is written, so a binary or non-UTF-8
    /// file, or a bad JSONL line, fails the call with `.invalidDocument` and ingests
    /// nothing. Each document is then its own transaction.
    ///
    /// - Parameters:
    ///   - files: Files and folders to read.
    ///   - progress: Called after each document with (documents done, total).
    @discardableResult
    public func ingest(
        files: [URL],
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) async throws(SDKException) -> [RAGIngestResult] {
        let documents = try RAGDocumentReader.read(files)
        var results: [RAGIngestResult] = []
        for (done, document) in documents.enumerated() {
            results.append(
                try await ingest(
                    documentId: document.id,
                    text: document.text,
                    title: document.title,
                    metadata: document.metadata
                )
            )
            progress?(done + 1, documents.count)
        }
        return results
    }

    /// Removes a document and its chunks.
    ///
    /// - Returns: whether there was such a document.
    @discardableResult
    public func delete(documentId: String) async throws(SDKException) -> Bool {
        guard let removed = try await store.deleteDocument(id: documentId) else { return false }
        await applyToCaches(removed: removed.removed, added: [], generation: removed.generation)
        sdk.events.publish(.documentDeleted(index: name, documentId: documentId))
        return true
    }

    // MARK: Search

    /// The chunks most relevant to `query`, best first.
    ///
    /// - Throws: `.emptyText` for an empty query, `.invalidInput` for bad options.
    public func search(
        _ query: String,
        options: RAGSearchOptions = RAGSearchOptions()
    ) async throws(SDKException) -> [RAGSearchResult] {
        try await searchWithTimings(query, options: options).results
    }

    /// ``search(_:options:)`` with the time spent embedding the query and searching.
    public func searchWithTimings(
        _ query: String,
        options: RAGSearchOptions = RAGSearchOptions()
    ) async throws(SDKException) -> RAGSearchResponse {
        try options.validate()
        guard !query.trimmed().isEmpty else {
            throw SDKException(.emptyText, "The query is empty")
        }
        var queryVector: [Float]?
        var embeddingMs = 0.0
        if options.mode != .bm25 {
            try await ensureEmbeddingModel()
            let embedded = try await sdk.embeddings(for: [query])
            guard embedded.dimension == dimension else { throw mismatch(embedded.dimension) }
            queryVector = embedded.vectors[0]
            embeddingMs = embedded.durationMs
        }
        let start = ContinuousClock.now
        var firstStage = options
        if let reranker = options.reranker { firstStage.topK = max(options.topK, reranker.candidates) }
        var results = try await rank(query, vector: queryVector, options: firstStage)
        let searchMs = start.duration(to: .now).milliseconds
        var rerankMs = 0.0
        if let reranker = options.reranker {
            let rerankStart = ContinuousClock.now
            results = Array(
                try await reranker.rerank(results, query: query, runtime: sdk.runtime()).prefix(options.topK)
            )
            rerankMs = rerankStart.duration(to: .now).milliseconds
        }
        return RAGSearchResponse(
            results: results,
            queryEmbeddingMs: embeddingMs,
            searchMs: searchMs,
            rerankMs: rerankMs
        )
    }

    /// Ranks with a query vector computed elsewhere (`nil` for `.bm25`); benchmarks use it
    /// to time the index alone.
    package func rank(
        _ query: String,
        vector: [Float]?,
        options: RAGSearchOptions
    ) async throws(SDKException)
        -> [RAGSearchResult]
    {
        let allowed: Set<String>? = options.filter.isEmpty ? nil : try await store.documents(matching: options.filter)
        if let allowed, allowed.isEmpty { return [] }
        let candidates = options.mode == .hybrid ? max(options.topK, options.fusionCandidates) : options.topK
        var allowedChunks: Set<Int64>?
        if let allowed { allowedChunks = try await store.chunkIds(inDocuments: allowed) }
        var keyword: [(Int64, Double)] = []
        var semantic: [(Int64, Double)] = []
        if options.mode != .vector {
            let terms = KeywordIndex.queryTerms(query)
            if !terms.isEmpty {
                keyword = try await currentKeywords().search(terms, k: candidates, allowed: allowedChunks).map {
                    ($0.id, $0.score)
                }
            }
        }
        if options.mode != .bm25, let vector {
            semantic = try await vectorSearch(vector, k: candidates, allowed: allowedChunks).map {
                ($0.id, Double($0.score))
            }
        }
        let ranked: [(Int64, Double)]
        switch options.mode {
        case .bm25: ranked = keyword
        case .vector: ranked = semantic
        case .hybrid:
            ranked = Array(Self.fuse([keyword, semantic], k: options.fusionK).prefix(options.topK))
        }
        let rows = try await store.chunks(ranked.map(\.0))
        return ranked.compactMap { id, score in
            guard let row = rows[id] else { return nil }
            return RAGSearchResult(
                documentId: row.documentId,
                chunkId: id,
                ordinal: row.ordinal,
                score: score,
                text: row.text,
                startOffset: row.start,
                endOffset: row.end,
                title: row.title,
                metadata: row.metadata
            )
        }
    }

    /// Reciprocal rank fusion: each list adds 1 / (k + rank) for each chunk it ranks (rank
    /// from 1). Ties go to the lower chunk id, so the order is stable.
    static func fuse(_ lists: [[(Int64, Double)]], k: Double) -> [(Int64, Double)] {
        var scores: [Int64: Double] = [:]
        for list in lists {
            for (rank, entry) in list.enumerated() { scores[entry.0, default: 0] += 1 / (k + Double(rank + 1)) }
        }
        return scores.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The `k` chunks nearest to `vector`: exact below the threshold or with a filter,
    /// approximate above it.
    package func vectorSearch(
        _ vector: [Float],
        k: Int,
        allowed: Set<Int64>? = nil
    ) async throws(SDKException)
        -> [(id: Int64, score: Float)]
    {
        switch try await currentVectors() {
        case .exact(let index): return index.search(vector, k: k, allowed: allowed)
        case .approximate(let index):
            if let allowed { return index.exactSearch(vector, k: k, allowed: allowed) }
            return index.search(vector, k: k, ef: max(searchBeam, k))
        }
    }

    /// Exact search whatever the index uses, the ground truth for measuring recall.
    package func exactVectorSearch(_ vector: [Float], k: Int) async throws(SDKException) -> [(id: Int64, score: Float)]
    {
        switch try await currentVectors() {
        case .exact(let index): return index.search(vector, k: k)
        case .approximate(let index): return index.exactSearch(vector, k: k)
        }
    }

    /// Sets the size from which vector search is approximate, and the beam of approximate
    /// search; the next search rebuilds what it needs.
    package func configureVectorSearch(approximateThreshold: Int, searchBeam: Int) {
        self.approximateThreshold = max(1, approximateThreshold)
        self.searchBeam = max(1, searchBeam)
        vectors = nil
        vectorsGeneration = -1
    }

    /// The vectors, reloaded when another process (or another handle) has written since;
    /// above the threshold, the saved approximate graph is loaded and brought up to date,
    /// or built, and saved.
    private func currentVectors() async throws(SDKException) -> VectorSearch {
        let generation = try await store.generation()
        if let vectors, vectorsGeneration == generation { return vectors }
        let loaded = try await store.allVectors(dimension: dimension)
        let search: VectorSearch
        if loaded.ids.count < approximateThreshold {
            search = .exact(ExactVectorIndex(dimension: dimension, ids: loaded.ids, data: loaded.data))
        } else {
            var byId: [Int64: ArraySlice<Float>] = [:]
            byId.reserveCapacity(loaded.ids.count)
            for (row, id) in loaded.ids.enumerated() {
                byId[id] = loaded.data[(row * dimension)..<((row + 1) * dimension)]
            }
            var graph = try await store.loadVectorIndex().flatMap { saved in
                HNSWIndex.deserialize(saved.data, vectors: byId, dimension: dimension)
            }
            let stale = graph.map { $0.nodeCount - $0.count > $0.count / 4 } ?? true
            if stale { graph = HNSWIndex(dimension: dimension) }
            var index = graph!
            var changed = stale
            for (row, id) in loaded.ids.enumerated() where index.nodes[id] == nil {
                index.add(id, Array(loaded.data[(row * dimension)..<((row + 1) * dimension)]))
                changed = true
            }
            if changed || index.count != loaded.ids.count {
                logger.info("Saving the vector graph of \(name) (\(index.count) chunks)")
                try await store.saveVectorIndex(index.serialized(), generation: loaded.generation)
            }
            unsavedGraphChanges = 0
            search = .approximate(index)
        }
        vectors = search
        vectorsGeneration = loaded.generation
        return search
    }

    /// The keyword postings, rebuilt from the chunks' text when another process (or another
    /// handle) has written since.
    private func currentKeywords() async throws(SDKException) -> KeywordIndex {
        let generation = try await store.generation()
        if let keywords, keywordsGeneration == generation { return keywords }
        let loaded = try await store.keywordIndex()
        keywords = loaded.index
        keywordsGeneration = loaded.generation
        return loaded.index
    }

    /// Brings the cached vectors and postings up to a write this handle made, when they
    /// were current before it; otherwise the next search reloads them.
    private func applyToCaches(
        removed: [Int64],
        added: [(id: Int64, text: String, vector: [Float])],
        generation: Int64
    ) async {
        if var cached = keywords, keywordsGeneration == generation - 1 {
            cached.remove(removed)
            for chunk in added { cached.add(chunk.id, text: chunk.text) }
            keywords = cached
            keywordsGeneration = generation
        }
        guard var cached = vectors, vectorsGeneration == generation - 1 else { return }
        cached.apply(removed: removed, added: added.map { ($0.id, $0.vector) })
        let crossed: Bool
        if case .exact = cached { crossed = cached.count >= approximateThreshold } else { crossed = false }
        if crossed {
            vectors = nil
            vectorsGeneration = -1
            return
        }
        vectors = cached
        vectorsGeneration = generation
        if case .approximate(let graph) = cached {
            unsavedGraphChanges += removed.count + added.count
            // The graph is a cache that the next open repairs: save it now and then, not per document.
            if unsavedGraphChanges >= 2_000 {
                try? await store.saveVectorIndex(graph.serialized(), generation: generation)
                unsavedGraphChanges = 0
            }
        }
    }

    // MARK: Answers

    /// Retrieves sources for `question` and has the language model answer from them,
    /// citing them by number.
    ///
    /// - Throws: what ``search(_:options:)`` and `chat(_:options:)` throw; `.modelNotLoaded`
    ///   when no language model is loaded and none is named in the options.
    public func query(
        _ question: String,
        options: RAGQueryOptions = RAGQueryOptions()
    ) async throws(SDKException) -> RAGAnswer {
        let (sources, messages, retrievalMs) = try await prepareAnswer(question, options: options)
        let result = try await sdk.chat(messages, options: options.generation)
        return RAGAnswer(
            text: result.text,
            sources: sources,
            citations: RAGAnswer.citations(in: result.text, sources: sources),
            generation: result,
            retrievalMs: retrievalMs
        )
    }

    /// ``query(_:options:)`` as a stream: the sources first, then the answer token by token,
    /// then the complete answer. Stopping the iteration early cancels the generation.
    public func queryStream(
        _ question: String,
        options: RAGQueryOptions = RAGQueryOptions()
    ) async throws(SDKException) -> AsyncThrowingStream<RAGQueryEvent, any Error> {
        let (sources, messages, retrievalMs) = try await prepareAnswer(question, options: options)
        let tokens = try await sdk.chatStream(messages, options: options.generation)
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: RAGQueryEvent.self)
        let task = Task {
            continuation.yield(.sources(sources))
            do {
                for try await event in tokens {
                    switch event {
                    case .token(let text, false): continuation.yield(.token(text))
                    case .token: break
                    case .completed(let result):
                        let answer = RAGAnswer(
                            text: result.text,
                            sources: sources,
                            citations: RAGAnswer.citations(in: result.text, sources: sources),
                            generation: result,
                            retrievalMs: retrievalMs
                        )
                        continuation.yield(.completed(answer))
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        return stream
    }

    private func prepareAnswer(
        _ question: String,
        options: RAGQueryOptions
    ) async throws(SDKException) -> ([RAGSearchResult], [ChatMessage], Double) {
        guard !question.trimmed().isEmpty else {
            throw SDKException(.emptyPrompt, "The question is empty")
        }
        if let model = options.model { try await sdk.loadModel(model) }
        guard await sdk.currentLLMModel != nil else {
            throw SDKException(
                .modelNotLoaded,
                "No language model is loaded to answer with",
                recovery: "Load one first (loadModel(\"\(DefaultModelIds.llm)\")) or name it in RAGQueryOptions.model"
            )
        }
        let retrieval = try await searchWithTimings(question, options: options.search)
        let sources = retrieval.results
        var context = options.instructions + "\n\nSources:\n"
        for (number, source) in sources.enumerated() {
            let label = source.title.map { " (\($0))" } ?? ""
            context += "[\(number + 1)]\(label) \(source.text)\n"
        }
        if sources.isEmpty { context += "(none)\n" }
        let messages = [ChatMessage(role: .system, content: context), ChatMessage(role: .user, content: question)]
        return (sources, messages, retrieval.queryEmbeddingMs + retrieval.searchMs + retrieval.rerankMs)
    }

    // MARK: Information

    /// What the index holds.
    public func stats() async throws(SDKException) -> RAGIndexStats {
        let counts = try await store.counts()
        let files = [store.url.path, store.url.path + "-wal"]
        let bytes = files.reduce(Int64(0)) { total, path in
            total + (FileSystem.fileSize(URL(fileURLWithPath: path)) ?? 0)
        }
        // SQLite writes the WAL first: the later of the two files is the last write.
        let lastUpdated = files.compactMap {
            (try? FileManager.default.attributesOfItem(atPath: $0))?[.modificationDate] as? Date
        }
        .max()
        return RAGIndexStats(
            name: name,
            embeddingModel: embeddingModel,
            dimension: dimension,
            chunking: chunking,
            documents: counts.documents,
            chunks: counts.chunks,
            tokens: counts.tokens,
            databaseBytes: bytes,
            vectorSearch: counts.chunks >= approximateThreshold ? "hnsw" : "exact",
            lastUpdated: lastUpdated
        )
    }

    /// The ids of every document, sorted.
    public func documentIds() async throws(SDKException) -> [String] {
        try await store.documentIds()
    }

    /// Saves what is worth keeping and closes the database. Later calls fail; open the
    /// index again to use it.
    public func close() async {
        if case .approximate(let graph) = vectors, unsavedGraphChanges > 0 {
            try? await store.saveVectorIndex(graph.serialized(), generation: vectorsGeneration)
        }
        store.close()
        vectors = nil
    }

    // MARK: Helpers

    private func ensureEmbeddingModel() async throws(SDKException) {
        if await sdk.currentEmbeddingModel?.id != embeddingModel {
            try await sdk.loadEmbeddingModel(embeddingModel)
        }
        if let info = await sdk.embeddingModelInfo, info.dimension != dimension { throw mismatch(info.dimension) }
    }

    private func mismatch(_ found: Int) -> SDKException {
        SDKException(
            .embeddingMismatch,
            "Index '\(name)' holds \(dimension)-dimensional vectors of \(embeddingModel), but the model gives \(found)",
            recovery: "Use the model the index was built with, or create a new index for this one"
        )
    }

    /// `.invalidDocument` for an empty id or a text with nothing to index or a NUL byte.
    static func validateDocument(id: String, text: String) throws(SDKException) {
        guard !id.trimmed().isEmpty else {
            throw SDKException(.invalidDocument, "A document needs a non-empty id")
        }
        guard !text.utf8.contains(0) else {
            throw SDKException(
                .invalidDocument,
                "Document '\(id)' contains NUL bytes: it looks binary, not text",
                recovery: "Extract its text first"
            )
        }
        guard !text.trimmed().isEmpty else {
            throw SDKException(.invalidDocument, "Document '\(id)' is empty")
        }
    }
}
