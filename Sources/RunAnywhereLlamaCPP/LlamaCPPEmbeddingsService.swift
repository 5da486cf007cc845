internal import CLlama
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

/// A GGUF embedding model (BERT-style, pooled) in llama.cpp, or a reranking model (rank
/// pooling: a cross-encoder whose classifier head scores each window).
///
/// Windows are packed into as few engine calls as fit: each call holds up to
/// ``maxSequences`` windows, one sequence id each, within the context's token budget, and
/// llama.cpp pools every sequence on its own. Every engine call runs on the service's own
/// ``WorkerThread``.
actor LlamaCPPEmbeddingsService: EmbeddingsService {
    nonisolated let model: ModelInfo
    nonisolated let dimension: Int
    nonisolated let maxTokensPerWindow: Int
    nonisolated let isReranker: Bool
    nonisolated let pairSeparator: [Int32]
    private let engine: Engine
    private let worker: WorkerThread

    /// Sequences one engine call may hold (llama.cpp's limit is at least this).
    static let maxSequences = 64
    /// Default token budget of one engine call. All sequences of a call share one attention
    /// matrix (masked per sequence), so its cost grows with the square of the budget: 512
    /// embedded 16.8K tokens in 4.8 s on 2 threads here, 2048 took 7.7 s.
    static let defaultBatchTokens = 512

    /// The raw handles. Only touched on `worker`.
    final class Engine: @unchecked Sendable {
        var model: OpaquePointer?
        var context: OpaquePointer?
        let vocab: OpaquePointer?
        /// Tokens of one engine call, windows' special tokens included.
        let batchTokens: Int
        /// Special tokens the model's tokenizer puts before and after a text (e.g. [CLS] … [SEP]).
        let prefix: [llama_token]
        let suffix: [llama_token]

        init(
            model: OpaquePointer,
            context: OpaquePointer,
            batchTokens: Int,
            prefix: [llama_token],
            suffix: [llama_token]
        ) {
            self.model = model
            self.context = context
            self.vocab = llama.llama_model_get_vocab(model)
            self.batchTokens = batchTokens
            self.prefix = prefix
            self.suffix = suffix
        }

        func free() {
            if let context { llama.llama_free(context) }
            if let model { llama.llama_model_free(model) }
            context = nil
            model = nil
        }

        deinit { free() }
    }

    private init(model: ModelInfo, engine: Engine, worker: WorkerThread, shape: Shape) {
        self.model = model
        self.engine = engine
        self.worker = worker
        self.dimension = shape.dimension
        self.maxTokensPerWindow = shape.window
        self.isReranker = shape.reranker
        self.pairSeparator = shape.separator
    }

    /// What loading found out about the model.
    private struct Shape: Sendable {
        var dimension: Int
        var window: Int
        var reranker: Bool
        var separator: [Int32]
    }

    static func load(
        model: ModelInfo,
        configuration: EmbeddingsLoadConfiguration,
        useGPU: Bool
    ) async throws -> LlamaCPPEmbeddingsService {
        let path = try model.localFile().path
        let threads = Int32(configuration.threads ?? ProcessInfo.processInfo.activeProcessorCount)
        let worker = WorkerThread(name: "llama.embed.\(model.id)")
        do {
            let (engine, shape) = try await worker.run { () throws -> (Engine, Shape) in
                let handle = try LlamaCPPLLMService.openModel(path, useGPU: useGPU)
                let trained = Int(llama.llama_model_n_ctx_train(handle))
                // llama.cpp aborts the process unless the micro-batch is a multiple of the
                // sequence count: round the budget up to one.
                let asked = configuration.batchTokens ?? defaultBatchTokens
                guard asked >= 1, asked <= 1 << 20 else {
                    llama.llama_model_free(handle)
                    throw SDKException(.invalidInput, "batchTokens must be between 1 and 1048576, not \(asked)")
                }
                let budget = (asked + maxSequences - 1) / maxSequences * maxSequences
                var contextParams = llama.llama_context_default_params()
                contextParams.n_ctx = UInt32(budget)
                // Non-causal models must see a whole sequence in one micro-batch.
                contextParams.n_batch = UInt32(budget)
                contextParams.n_ubatch = UInt32(budget)
                contextParams.n_seq_max = UInt32(maxSequences)
                contextParams.n_threads = threads
                contextParams.n_threads_batch = threads
                contextParams.embeddings = true
                contextParams.kv_unified = true
                contextParams.no_perf = true
                var context = llama.llama_init_from_model(handle, contextParams)
                if let made = context, llama.llama_pooling_type(made) == LLAMA_POOLING_TYPE_NONE {
                    // A model without pooling of its own (e.g. a chat model) is mean-pooled.
                    llama.llama_free(made)
                    contextParams.pooling_type = LLAMA_POOLING_TYPE_MEAN
                    context = llama.llama_init_from_model(handle, contextParams)
                }
                guard let context else {
                    llama.llama_model_free(handle)
                    throw SDKException(.modelLoadFailed, "llama.cpp could not create an embedding context for \(path)")
                }
                // Rank pooling: a cross-encoder whose head gives n_cls_out scores per sequence.
                let reranker = llama.llama_pooling_type(context) == LLAMA_POOLING_TYPE_RANK
                guard let vocab = llama.llama_model_get_vocab(handle) else {
                    llama.llama_free(context)
                    llama.llama_model_free(handle)
                    throw SDKException(.modelLoadFailed, "\(model.id) has no vocabulary")
                }
                let (prefix, suffix) = try specialTokens(vocab: vocab)
                let dimension = Int(
                    reranker ? llama.llama_model_n_cls_out(handle) : UInt32(llama.llama_model_n_embd(handle))
                )
                // A pair reads [CLS] query [SEP] passage [SEP] (or the model's own markers):
                // what ends a text, then the separator if the model has one of its own.
                var separator = suffix
                let sep = llama.llama_vocab_sep(vocab)
                if sep >= 0, !separator.contains(sep) { separator.append(sep) }
                let window = min(trained > 0 ? trained : budget, budget) - prefix.count - suffix.count
                guard window > 0, dimension > 0 else {
                    llama.llama_free(context)
                    llama.llama_model_free(handle)
                    throw SDKException(.modelLoadFailed, "\(model.id) has no room for text in a \(budget)-token batch")
                }
                let engine = Engine(
                    model: handle,
                    context: context,
                    batchTokens: budget,
                    prefix: prefix,
                    suffix: suffix
                )
                return (engine, Shape(dimension: dimension, window: window, reranker: reranker, separator: separator))
            }
            return LlamaCPPEmbeddingsService(model: model, engine: engine, worker: worker, shape: shape)
        } catch {
            worker.stop()
            throw error
        }
    }

    /// What the tokenizer adds around a text when asked for special tokens, found by
    /// comparing a word tokenized with and without them.
    private static func specialTokens(vocab: OpaquePointer?) throws -> ([llama_token], [llama_token]) {
        let plain = try LlamaCPPLLMService.tokenize("hello", vocab: vocab, prompt: false)
        let full = try LlamaCPPLLMService.tokenize("hello", vocab: vocab, prompt: true)
        guard !plain.isEmpty, full.count >= plain.count else { return ([], []) }
        for start in 0...(full.count - plain.count) where Array(full[start..<start + plain.count]) == plain {
            return (Array(full[..<start]), Array(full[(start + plain.count)...]))
        }
        return ([], [])
    }

    func unload() async {
        let engine = self.engine
        _ = try? await worker.run { engine.free() }
        worker.stop()
    }

    func tokenize(_ text: String) async throws -> [Int32] {
        let engine = self.engine
        return try await worker.run { try LlamaCPPLLMService.tokenize(text, vocab: engine.vocab, prompt: false) }
    }

    func embed(windows: [[Int32]]) async throws -> [[Float]] {
        let engine = self.engine
        let dimension = self.dimension
        let window = self.maxTokensPerWindow
        let modelId = model.id
        let vocabSize = try await worker.run { Int32(llama.llama_vocab_n_tokens(engine.vocab)) }
        for tokens in windows {
            guard !tokens.isEmpty, tokens.count <= window else {
                throw SDKException(.invalidInput, "A window holds 1…\(window) tokens, not \(tokens.count)")
            }
            // An id outside the vocabulary would index past llama.cpp's tables.
            guard tokens.allSatisfy({ $0 >= 0 && $0 < vocabSize }) else {
                throw SDKException(.invalidInput, "A window holds a token outside \(modelId)'s vocabulary")
            }
        }
        return try await worker.run {
            try Self.encode(windows, engine: engine, dimension: dimension, modelId: modelId)
        }
    }

    /// Packs windows into engine calls (token budget and sequence limit) and reads each
    /// sequence's pooled vector.
    private static func encode(
        _ windows: [[Int32]],
        engine: Engine,
        dimension: Int,
        modelId: String
    ) throws -> [[Float]] {
        guard let context = engine.context else {
            throw SDKException(.modelNotLoaded, "Model '\(modelId)' was unloaded")
        }
        let sequences = windows.map { engine.prefix + $0 + engine.suffix }
        var vectors: [[Float]] = []
        vectors.reserveCapacity(windows.count)
        var batch = llama.llama_batch_init(Int32(engine.batchTokens), 0, 1)
        defer { llama.llama_batch_free(batch) }
        var next = 0
        while next < sequences.count {
            var end = next
            var used = 0
            while end < sequences.count, end - next < maxSequences, used + sequences[end].count <= engine.batchTokens {
                used += sequences[end].count
                end += 1
            }
            batch.n_tokens = 0
            for (seq, tokens) in sequences[next..<end].enumerated() {
                for (position, token) in tokens.enumerated() {
                    let slot = Int(batch.n_tokens)
                    batch.token[slot] = token
                    batch.pos[slot] = llama_pos(position)
                    batch.n_seq_id[slot] = 1
                    batch.seq_id[slot]![0] = llama_seq_id(seq)
                    batch.logits[slot] = 1
                    batch.n_tokens += 1
                }
            }
            if let memory = llama.llama_get_memory(context) { llama.llama_memory_clear(memory, true) }
            let rc = llama.llama_decode(context, batch)
            guard rc == 0 else { throw SDKException(.backendError, "llama.cpp could not encode (code \(rc))") }
            for seq in 0..<(end - next) {
                guard let pooled = llama.llama_get_embeddings_seq(context, llama_seq_id(seq)) else {
                    throw SDKException(.backendError, "llama.cpp returned no pooled vector for \(modelId)")
                }
                vectors.append(Array(UnsafeBufferPointer(start: pooled, count: dimension)))
            }
            next = end
        }
        return vectors
    }
}
