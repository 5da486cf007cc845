internal import CLlama
@_spi(Backend) import RunAnywhere
import Synchronization

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

/// Continuous batching: every generation running on one model is decoded in the same
/// `llama_decode` call, one token per generation per step, so several callers share each
/// pass over the weights instead of waiting for one another.
///
/// The model's context holds one KV-cache sequence per slot. A generation takes a free
/// slot (the one whose cached tokens share the longest prefix with its prompt, which are
/// kept), evaluates the rest of its prompt in chunks that ride along with the other slots'
/// decode steps, then samples one token per step with its own sampler. Generations beyond
/// the slots wait in arrival order. Cancellation is checked before every step, so a
/// cancelled generation ends within one token.
///
/// The decode loop is one job on the model's ``WorkerThread``: it starts when the first
/// generation arrives and returns when none is left, so the other engine work (scoring,
/// unloading) runs between busy periods, never during a step.
final class LlamaCPPBatchDecoder: Sendable {
    /// A generation waiting for a slot.
    private struct Job: Sendable {
        let request: LLMServiceRequest
        let onToken: @Sendable ([UInt8]) -> TokenDisposition
        let continuation: CheckedContinuation<LLMServiceResult, any Error>
    }

    private struct Queue {
        var pending: [Job] = []
        /// Whether the decode loop is queued or running on the worker.
        var running = false
    }

    private let queue = Mutex(Queue())
    private let engine: LlamaCPPLLMService.Engine
    private let worker: WorkerThread
    private let contextLength: Int
    private let modelId: String

    init(engine: LlamaCPPLLMService.Engine, worker: WorkerThread, contextLength: Int, modelId: String) {
        self.engine = engine
        self.worker = worker
        self.contextLength = contextLength
        self.modelId = modelId
    }

    /// Queues a generation and waits for its result.
    func generate(
        _ request: LLMServiceRequest,
        onToken: @escaping @Sendable ([UInt8]) -> TokenDisposition
    ) async throws -> LLMServiceResult {
        try await withCheckedThrowingContinuation { continuation in
            let startLoop = queue.withLock { queue -> Bool in
                queue.pending.append(Job(request: request, onToken: onToken, continuation: continuation))
                defer { queue.running = true }
                return !queue.running
            }
            guard startLoop else { return }
            if !worker.submit({ self.runLoop() }) {
                failPending(SDKException(.modelNotLoaded, "Model '\(modelId)' was unloaded"))
            }
        }
    }

    private func failPending(_ error: SDKException) {
        let jobs = queue.withLock { queue in
            defer {
                queue.pending = []
                queue.running = false
            }
            return queue.pending
        }
        for job in jobs { job.continuation.resume(throwing: error) }
    }

    // MARK: The decode loop (on the worker thread only)

    /// A generation in a slot.
    private final class Generation {
        let job: Job
        /// The prompt tokens (after any truncation).
        let tokens: [llama_token]
        let truncated: Int
        let sampler: UnsafeMutablePointer<llama_sampler>
        let constrained: GrammarSampler?
        /// Special tokens whose text the output keeps (``LLMServiceRequest/preservedTokens``).
        let preserved: Set<llama_token>
        /// The LoRA adapters it runs with, normalized.
        let adapters: [LoRAAdapterSelection]
        /// Prompt tokens already in the slot's cache; equal to `tokens.count` once decoding.
        var evaluated: Int
        /// The sampled token still to be fed to the model.
        var pending: llama_token?
        var generated = 0

        init(
            job: Job,
            tokens: [llama_token],
            truncated: Int,
            sampler: UnsafeMutablePointer<llama_sampler>,
            constrained: GrammarSampler?,
            preserved: Set<llama_token>,
            adapters: [LoRAAdapterSelection],
            evaluated: Int
        ) {
            self.job = job
            self.tokens = tokens
            self.truncated = truncated
            self.sampler = sampler
            self.constrained = constrained
            self.preserved = preserved
            self.adapters = adapters
            self.evaluated = evaluated
        }

        deinit { llama.llama_sampler_free(sampler) }

        func result(_ reason: LLMServiceResult.StopReason) -> LLMServiceResult {
            LLMServiceResult(
                promptTokens: tokens.count,
                generatedTokens: generated,
                stopReason: reason,
                truncatedPromptTokens: truncated
            )
        }
    }

    private func runLoop() {
        guard let context = engine.context else {
            failPending(SDKException(.modelNotLoaded, "Model '\(modelId)' was unloaded"))
            return
        }
        var slots = [Generation?](repeating: nil, count: engine.slotCaches.count)
        var batch = llama.llama_batch_init(Int32(engine.batchSize + slots.count), 0, 1)
        defer { llama.llama_batch_free(batch) }
        var pieceBuffer = [CChar](repeating: 0, count: 256)
        /// The batch rows whose logits are sampled, with their slots.
        var outputs: [(slot: Int, row: Int32)] = []
        /// Counts steps, to take turns between generations with different LoRA adapters.
        var turn = 0

        while true {
            let free = slots.indices.filter { slots[$0] == nil }
            let admitted = queue.withLock { queue -> [Job]? in
                if queue.pending.isEmpty, free.count == slots.count {
                    queue.running = false
                    return nil
                }
                let count = min(free.count, queue.pending.count)
                defer { queue.pending.removeFirst(count) }
                return Array(queue.pending.prefix(count))
            }
            guard let admitted else { return }
            for job in admitted {
                admit(job, into: &slots, context: context)
            }
            for index in slots.indices {
                if let generation = slots[index], generation.job.request.cancellation.isCancelled {
                    finish(&slots, index, .cancelled)
                }
            }
            // LoRA adapters belong to the context, not to a sequence: a step decodes only the
            // generations that use the same adapters, and different sets take turns.
            var sets: [[LoRAAdapterSelection]] = []
            for generation in slots.compactMap({ $0 }) where !sets.contains(generation.adapters) {
                sets.append(generation.adapters)
            }
            guard !sets.isEmpty else { continue }
            let adapters = sets[turn % sets.count]
            turn &+= 1
            let members = slots.indices.filter { slots[$0]?.adapters == adapters }
            do {
                try engine.useAdapters(adapters)
            } catch {
                for index in members {
                    slots[index]?.job.continuation.resume(throwing: error)
                    slots[index] = nil
                }
                continue
            }
            // llama.cpp computes steps of one token with `threads` and longer ones (a prompt
            // chunk) with `promptThreads`.
            let request = members.count == 1 ? slots[members[0]]?.job.request : nil
            let threads = request?.threads.map(Int32.init) ?? engine.defaultThreads
            let promptThreads = request?.promptThreads.map(Int32.init) ?? threads
            if llama.llama_n_threads(context) != threads || llama.llama_n_threads_batch(context) != promptThreads {
                llama.llama_set_n_threads(context, threads, promptThreads)
            }

            // One token for every decoding slot first, then prompt chunks in what is left.
            batch.n_tokens = 0
            outputs.removeAll(keepingCapacity: true)
            for index in members {
                guard let generation = slots[index], let token = generation.pending else { continue }
                outputs.append((index, batch.n_tokens))
                add(token, position: engine.slotCaches[index].count, slot: index, logits: true, to: &batch)
            }
            var budget = engine.batchSize - Int(batch.n_tokens)
            for index in members where budget > 0 {
                guard let generation = slots[index], generation.evaluated < generation.tokens.count else { continue }
                let count = min(budget, generation.tokens.count - generation.evaluated)
                for offset in generation.evaluated..<(generation.evaluated + count) {
                    let last = offset == generation.tokens.count - 1
                    if last { outputs.append((index, batch.n_tokens)) }
                    add(generation.tokens[offset], position: offset, slot: index, logits: last, to: &batch)
                }
                budget -= count
            }

            let rc = llama.llama_decode(context, batch)
            guard rc == 0 else {
                // The cache may hold part of this step: start every slot afresh.
                llama.llama_memory_clear(llama.llama_get_memory(context), true)
                for index in engine.slotCaches.indices { engine.slotCaches[index] = [] }
                let error = SDKException(.generationFailed, "llama_decode failed (code \(rc))")
                for index in slots.indices {
                    slots[index]?.job.continuation.resume(throwing: error)
                    slots[index] = nil
                }
                continue
            }
            for row in 0..<Int(batch.n_tokens) {
                engine.slotCaches[Int(batch.seq_id[row]![0])].append(batch.token[row])
            }
            for index in members {
                guard let generation = slots[index] else { continue }
                if generation.pending != nil {
                    generation.pending = nil
                } else {
                    generation.evaluated = min(generation.tokens.count, engine.slotCaches[index].count)
                }
            }
            for (index, row) in outputs {
                sample(&slots, index, row: row, context: context, pieceBuffer: &pieceBuffer)
            }
        }
    }

    private func add(
        _ token: llama_token,
        position: Int,
        slot: Int,
        logits: Bool,
        to batch: inout llama_batch
    ) {
        let row = Int(batch.n_tokens)
        batch.token[row] = token
        batch.pos[row] = llama_pos(position)
        batch.n_seq_id[row] = 1
        batch.seq_id[row]![0] = llama_seq_id(slot)
        batch.logits[row] = logits ? 1 : 0
        batch.n_tokens += 1
    }

    /// Puts `job` in the free slot whose cache shares the longest prefix with its prompt,
    /// trims that cache to the shared prefix, or fails the job if it cannot run.
    private func admit(_ job: Job, into slots: inout [Generation?], context: OpaquePointer) {
        let request = job.request
        do {
            var tokens = try LlamaCPPLLMService.tokenize(request.prompt, vocab: engine.vocab)
            var truncated = 0
            // At least one free position must remain for the first generated token.
            if tokens.count >= contextLength {
                guard request.truncatePromptToFit else {
                    throw SDKException(
                        .contextLengthExceeded,
                        "The prompt has \(tokens.count) tokens but the context holds \(contextLength)",
                        recovery:
                            "Shorten the prompt, load the model with a larger contextLength, or set truncatePromptToFit"
                    )
                }
                let keep = max(1, contextLength - min(request.maxTokens, contextLength / 2))
                truncated = tokens.count - keep
                tokens = Array(tokens.suffix(keep))
            }
            let sampler = LlamaCPPLLMService.makeSampler(request.sampling, vocab: engine.vocab)
            // A grammar that does not parse fails here, before the engine's state is touched.
            let constrained: GrammarSampler?
            do {
                constrained = try request.grammar.map { grammar throws(SDKException) in
                    try GrammarSampler(
                        grammar,
                        vocab: engine.vocab,
                        chain: sampler,
                        greedy: request.sampling.temperature <= 0
                    )
                }
            } catch {
                llama.llama_sampler_free(sampler)
                throw error
            }
            let adapters: [LoRAAdapterSelection]
            do {
                adapters = try engine.resolve(request.loraAdapters)
            } catch {
                llama.llama_sampler_free(sampler)
                throw error
            }
            let slot = chooseSlot(for: tokens, adapters: adapters, among: slots, reusePrefix: request.reusePrefix)
            let reused = keepPrefix(
                of: tokens,
                adapters: adapters,
                slot: slot,
                context: context,
                reusePrefix: request.reusePrefix
            )
            slots[slot] = Generation(
                job: job,
                tokens: tokens,
                truncated: truncated,
                sampler: sampler,
                constrained: constrained,
                preserved: Self.tokens(of: request.preservedTokens, vocab: engine.vocab),
                adapters: adapters,
                evaluated: reused
            )
        } catch {
            job.continuation.resume(throwing: error)
        }
    }

    /// The lowest free slot, unless another free slot's cache holds a substantial part of the
    /// prompt (a conversation's earlier turns, a shared document).
    ///
    /// Low ids first because with one KV stream per slot llama.cpp decodes together only
    /// sequences with consecutive ids: slots 0, 1 and 2 share one pass over the weights, slots
    /// 0 and 5 take two. A few shared template tokens are not worth a second pass per step.
    private func chooseSlot(
        for tokens: [llama_token],
        adapters: [LoRAAdapterSelection],
        among slots: [Generation?],
        reusePrefix: Bool
    ) -> Int {
        let free = slots.indices.filter { slots[$0] == nil }
        let lowest = free[0]
        guard reusePrefix else { return lowest }
        let best = free.max { commonPrefix($0, tokens, adapters) < commonPrefix($1, tokens, adapters) }!
        let reused = commonPrefix(best, tokens, adapters)
        let substantial = reused >= Self.substantialPrefix
        return substantial && reused > commonPrefix(lowest, tokens, adapters) ? best : lowest
    }

    /// Cached tokens worth taking a slot out of order for.
    static let substantialPrefix = 64

    /// Tokens of prompt another slot must share beyond this slot's own cache for its stream
    /// to be copied: a stream copy costs about as much as evaluating a few tokens.
    static let copyWorthwhile = 8

    /// Tokens of `tokens` that `slot`'s cache holds, computed with the same `adapters`.
    private func commonPrefix(_ slot: Int, _ tokens: [llama_token], _ adapters: [LoRAAdapterSelection]) -> Int {
        guard engine.slotAdapters[slot] == adapters else { return 0 }
        let cached = engine.slotCaches[slot]
        // At least one prompt token is always decoded, for its logits.
        let limit = min(cached.count, tokens.count - 1)
        var length = 0
        while length < limit, cached[length] == tokens[length] { length += 1 }
        return length
    }

    /// Trims the slot's cache to what `tokens` can reuse; returns how many tokens that is.
    ///
    /// When another slot (busy or idle) holds a longer prefix of the prompt (the same system
    /// prompt, the same document), its whole KV stream is copied into this slot first; only
    /// the rest of the prompt is then evaluated. The copy is one memcpy of the stream before
    /// the next decode, far cheaper than evaluating the shared tokens again.
    private func keepPrefix(
        of tokens: [llama_token],
        adapters: [LoRAAdapterSelection],
        slot: Int,
        context: OpaquePointer,
        reusePrefix: Bool
    ) -> Int {
        let memory = llama.llama_get_memory(context)
        let sequence = llama_seq_id(slot)
        var reused = reusePrefix ? commonPrefix(slot, tokens, adapters) : 0
        if reusePrefix, engine.slotCaches.count > 1 {
            let donors = engine.slotCaches.indices.filter { $0 != slot }
            if let donor = donors.max(by: {
                commonPrefix($0, tokens, adapters) < commonPrefix($1, tokens, adapters)
            }) {
                let shared = commonPrefix(donor, tokens, adapters)
                if shared >= reused + Self.copyWorthwhile {
                    // A whole-stream copy (the only kind llama.cpp does across streams) replaces
                    // this slot's cache; the trim below keeps the shared part.
                    llama.llama_memory_seq_cp(memory, llama_seq_id(donor), sequence, -1, -1)
                    engine.slotCaches[slot] = engine.slotCaches[donor]
                    reused = shared
                }
            }
        }
        // What the slot computes from here on uses these adapters.
        engine.slotAdapters[slot] = adapters
        if reused > 0, llama.llama_memory_seq_rm(memory, sequence, llama_pos(reused), -1) {
            engine.slotCaches[slot].removeLast(engine.slotCaches[slot].count - reused)
            return reused
        }
        _ = llama.llama_memory_seq_rm(memory, sequence, -1, -1)
        engine.slotCaches[slot] = []
        return 0
    }

    /// The ids of the special tokens `texts` name; a text that is not one token is skipped.
    private static func tokens(of texts: [String], vocab: OpaquePointer?) -> Set<llama_token> {
        Set(
            texts.compactMap { text in
                let tokens = try? LlamaCPPLLMService.tokenize(text, vocab: vocab, prompt: false, parseSpecial: true)
                return tokens?.count == 1 ? tokens?.first : nil
            }
        )
    }

    /// Samples the slot's next token from the logits at `row` and hands it to the caller.
    private func sample(
        _ slots: inout [Generation?],
        _ index: Int,
        row: Int32,
        context: OpaquePointer,
        pieceBuffer: inout [CChar]
    ) {
        guard let generation = slots[index] else { return }
        let request = generation.job.request
        if request.cancellation.isCancelled { return finish(&slots, index, .cancelled) }
        let next: llama_token
        if let constrained = generation.constrained {
            // End of generation only comes once the grammar is complete, and it always ends a
            // constrained generation: accepting it would abort the process.
            next = constrained.sample(context, vocab: engine.vocab, index: row)
            if llama.llama_vocab_is_eog(engine.vocab, next) { return finish(&slots, index, .endOfSequence) }
        } else {
            next = llama.llama_sampler_sample(generation.sampler, context, row)
            if !request.ignoreEndOfSequence, llama.llama_vocab_is_eog(engine.vocab, next) {
                return finish(&slots, index, .endOfSequence)
            }
        }
        generation.generated += 1
        let piece = LlamaCPPLLMService.piece(
            next,
            vocab: engine.vocab,
            buffer: &pieceBuffer,
            special: generation.preserved.contains(next)
        )
        if generation.job.onToken(piece) == .stop { return finish(&slots, index, .callback) }
        if generation.generated >= request.maxTokens { return finish(&slots, index, .maxTokens) }
        if engine.slotCaches[index].count >= contextLength { return finish(&slots, index, .contextFull) }
        generation.pending = next
    }

    private func finish(_ slots: inout [Generation?], _ index: Int, _ reason: LLMServiceResult.StopReason) {
        guard let generation = slots[index] else { return }
        slots[index] = nil
        generation.job.continuation.resume(returning: generation.result(reason))
    }
}
