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

/// A GGUF model loaded in llama.cpp, with one context reused across generations.
///
/// Every engine call runs on the service's own ``WorkerThread``, one at a time and in
/// arrival order; the handles are never touched from anywhere else. Generations go through
/// a ``LlamaCPPBatchDecoder``, which decodes up to one per slot together. Formatting and
/// tokenizing read only the model's template and vocabulary, which llama.cpp never changes
/// after loading, so they run beside generation instead of waiting for it.
actor LlamaCPPLLMService: LLMService {
    nonisolated let model: ModelInfo
    nonisolated let contextLength: Int
    nonisolated let chatTemplate: String?
    nonisolated let reasoningTags: ReasoningTags
    let engine: Engine
    let worker: WorkerThread
    private let decoder: LlamaCPPBatchDecoder

    /// The raw handles. Only touched on `worker`.
    final class Engine: @unchecked Sendable {
        var model: OpaquePointer?
        var context: OpaquePointer?
        let vocab: OpaquePointer?
        let batchSize: Int
        let defaultThreads: Int32
        let chatTemplate: String?
        /// The model's Jinja template through llama.cpp's chat layer, as llama-server renders it;
        /// `nil` when the model has none or it cannot be used, and then the built-in formats.
        let jinja: ChatTemplate?
        /// Per slot, the tokens whose state is in the context's memory (sequence = slot
        /// index, positions 0…).
        var slotCaches: [[llama_token]]
        /// Per slot, the LoRA adapters its cached tokens were computed with: a cache is only
        /// reused under the same adapters.
        var slotAdapters: [[LoRAAdapterSelection]]
        /// Loaded LoRA adapters (`llama_adapter_lora *`) by id.
        var adapters: [String: OpaquePointer] = [:]
        /// The adapters on the context now, as ``normalized(_:)`` gives them.
        var contextAdapters: [LoRAAdapterSelection] = []
        /// The adapters a request uses when it names none; set from any thread.
        let defaultAdapters = Mutex<[LoRAAdapterSelection]>([])

        init(
            model: OpaquePointer,
            context: OpaquePointer,
            batchSize: Int,
            threads: Int32,
            slots: Int,
            template: (source: String?, jinja: ChatTemplate?)
        ) {
            self.model = model
            self.context = context
            self.vocab = llama.llama_model_get_vocab(model)
            self.batchSize = batchSize
            self.defaultThreads = threads
            self.chatTemplate = template.source
            self.jinja = template.jinja
            self.slotCaches = Array(repeating: [], count: slots)
            self.slotAdapters = Array(repeating: [], count: slots)
        }

        /// Whether the handles are alive; held while tokenizing off the worker, so freeing
        /// them waits for any tokenization in progress.
        private let alive = Mutex(true)

        func free() {
            alive.withLock { alive in
                alive = false
                if let context { llama.llama_free(context) }
                if let model { llama.llama_model_free(model) }
                context = nil
                model = nil
            }
        }

        /// Runs `body` with the vocabulary, from any thread, unless the model was freed.
        func withVocabulary<T>(_ body: (OpaquePointer?) throws -> T) throws -> T? {
            try alive.withLock { alive in alive ? try body(vocab) : nil }
        }

        deinit { free() }
    }

    private init(model: ModelInfo, engine: Engine, worker: WorkerThread, contextLength: Int) {
        self.model = model
        self.engine = engine
        self.worker = worker
        self.contextLength = contextLength
        self.chatTemplate = engine.chatTemplate
        self.reasoningTags = Self.reasoningTags(of: engine.jinja)
        self.decoder = LlamaCPPBatchDecoder(
            engine: engine,
            worker: worker,
            contextLength: contextLength,
            modelId: model.id
        )
    }

    static func load(
        model: ModelInfo,
        configuration: LLMLoadConfiguration,
        useGPU: Bool
    ) async throws -> LlamaCPPLLMService {
        let path = try model.localFile().path
        let threads = Int32(configuration.threads ?? ProcessInfo.processInfo.activeProcessorCount)
        let slots = configuration.slots
        let worker = WorkerThread(name: "llama.\(model.id)")
        let engine: Engine
        do {
            engine = try await worker.run { () throws -> Engine in
                let handle = try Self.openModel(path, useGPU: useGPU)
                let template: (source: String?, jinja: ChatTemplate?)
                do {
                    template = try Self.template(of: handle, override: configuration.chatTemplate)
                } catch {
                    llama.llama_model_free(handle)
                    throw error
                }
                let contextLength = Self.contextLength(configuration, model: handle)
                var contextParams = llama.llama_context_default_params()
                // Each slot gets a KV-cache stream of its own, `contextLength` long, so attention
                // reads only its own sequence's cells (with one shared cache, every token would
                // attend over every idle slot's cached prefix too: measured 27% slower for one
                // client with eight warm slots). The batch decoder keeps the busy slots' ids
                // consecutive, which is what llama.cpp needs to decode them in one pass.
                contextParams.n_ctx = UInt32(contextLength * slots)
                contextParams.n_seq_max = UInt32(slots)
                contextParams.kv_unified = slots == 1
                contextParams.n_batch = UInt32(min(contextLength * slots, 2048))
                contextParams.n_ubatch = UInt32(min(contextLength * slots, 512))
                contextParams.n_threads = threads
                contextParams.n_threads_batch = threads
                contextParams.no_perf = true
                guard let context = llama.llama_init_from_model(handle, contextParams) else {
                    llama.llama_model_free(handle)
                    throw SDKException(
                        .modelLoadFailed,
                        "llama.cpp could not create a \(contextLength)-token context for \(path)",
                        recovery: "Try a smaller contextLength"
                    )
                }
                return Engine(
                    model: handle,
                    context: context,
                    batchSize: Int(contextParams.n_batch),
                    threads: threads,
                    slots: slots,
                    template: template
                )
            }
        } catch {
            worker.stop()
            throw error
        }
        let actual = Int(llama.llama_n_ctx_seq(engine.context))
        return LlamaCPPLLMService(model: model, engine: engine, worker: worker, contextLength: actual)
    }

    /// The chat template prompts are formatted with: the app's `override`, else the model's
    /// own; `jinja` is nil when the model's cannot be used (logged: the built-in formats serve).
    ///
    /// - Throws: `.invalidInput` when the app's template cannot be used.
    static func template(
        of model: OpaquePointer,
        override: String?
    ) throws(SDKException) -> (source: String?, jinja: ChatTemplate?) {
        if let override {
            return (override, try ChatTemplate(loadedModel: model, source: override))
        }
        let own = llama.llama_model_chat_template(model, nil).map { String(cString: $0) }
        do {
            return (own, try ChatTemplate(loadedModel: model))
        } catch {
            llamaLogger.warning(
                "The model's chat template cannot be used (\(error.message)): prompts use llama.cpp's built-in formats"
            )
            return (own, nil)
        }
    }

    /// Loads a GGUF file's weights: every layer on the GPU with `useGPU`, else none.
    static func openModel(_ path: String, useGPU: Bool) throws(SDKException) -> OpaquePointer {
        var modelParams = llama.llama_model_default_params()
        modelParams.n_gpu_layers = useGPU ? Int32.max : 0
        guard let handle = llama.llama_model_load_from_file(path, modelParams) else {
            throw SDKException(
                .modelLoadFailed,
                "llama.cpp could not load \(path)",
                recovery: "The file may be truncated or not a llama.cpp GGUF model: import it again"
            )
        }
        return handle
    }

    /// The context a load asks for: the configuration's, else the model's own capped at
    /// ``LLMLoadConfiguration/defaultContextCap``.
    static func contextLength(_ configuration: LLMLoadConfiguration, model: OpaquePointer) -> Int {
        configuration.resolvedContextLength(trained: Int(llama.llama_model_n_ctx_train(model)))
    }

    func unload() async {
        let engine = self.engine
        _ = try? await worker.run { engine.free() }
        worker.stop()
    }

    // MARK: Text

    func formatChat(_ messages: [ChatMessage], addAssistantTurn: Bool) async throws -> String {
        try await formatChat(messages, addAssistantTurn: addAssistantTurn, reasoning: nil)
    }

    func formatChat(
        _ messages: [ChatMessage],
        addAssistantTurn: Bool,
        reasoning: ReasoningMode?
    ) async throws
        -> String
    {
        if let jinja = engine.jinja {
            return try jinja.prompt(
                messages: messages,
                addGenerationPrompt: addAssistantTurn,
                enableThinking: ReasoningMode.enableThinking(reasoning)
            )
        }
        return try Self.applyTemplate(chatTemplate, messages, addAssistantTurn: addAssistantTurn)
    }

    /// The reasoning tags the template writes, `<think>`'s when it writes none. A tool call's
    /// opening also ends reasoning for llama.cpp's parser; here it is not a closing tag, so
    /// the call stays in the output where the parser reads it.
    static func reasoningTags(of jinja: ChatTemplate?) -> ReasoningTags {
        guard let jinja, let tags = try? jinja.prepare(messages: [.user("Hello")]).reasoningTags else { return .think }
        let close = tags.close.filter { !$0.contains("tool") && !$0.contains("function") }
        return ReasoningTags(open: tags.open, close: close)
    }

    func prepareToolChat(_ request: ToolChatRequest) async throws -> ToolChatPlan? {
        guard let jinja = engine.jinja else { return nil }
        let thinking = ReasoningMode.enableThinking(request.reasoning)
        let prepared = try jinja.prepare(
            messages: request.messages,
            tools: request.tools,
            toolChoice: request.toolChoice,
            parallelToolCalls: request.parallelToolCalls,
            options: ChatTemplateOptions(variables: thinking.map { ["enable_thinking": .bool($0)] } ?? [:])
        )
        guard prepared.templateWritesTools else { return nil }
        var plan = ToolChatPlan(prompt: prepared.prompt, syntax: prepared.formatName, grammar: prepared.samplingGrammar)
        {
            output,
            partial throws(SDKException) in
            try prepared.parse(output, partial: partial)
        }
        plan.preservedTokens = prepared.preservedTokens
        plan.additionalStops = prepared.additionalStops
        return plan
    }

    nonisolated var promptFormatting: PromptFormatting { engine.jinja == nil ? .builtIn : .modelTemplate }

    func tokenCount(_ text: String) async throws -> Int {
        guard let count = try engine.withVocabulary({ try Self.tokenize(text, vocab: $0).count }) else {
            throw SDKException(.modelNotLoaded, "Model '\(model.id)' was unloaded")
        }
        return count
    }

    static func applyTemplate(_ template: String?, _ messages: [ChatMessage], addAssistantTurn: Bool) throws -> String {
        let roles = messages.map { strdup($0.role.rawValue) }
        let contents = messages.map { strdup($0.content) }
        defer {
            for pointer in roles + contents { free(pointer) }
        }
        let chat = zip(roles, contents).map { llama_chat_message(role: $0, content: $1) }
        let budget = max(1024, messages.reduce(0) { $0 + $1.content.utf8.count } * 2 + 256)
        var buffer = [CChar](repeating: 0, count: budget)
        var written = llama.llama_chat_apply_template(
            template,
            chat,
            chat.count,
            addAssistantTurn,
            &buffer,
            Int32(buffer.count)
        )
        if written > Int32(buffer.count) {
            buffer = [CChar](repeating: 0, count: Int(written) + 1)
            written = llama.llama_chat_apply_template(
                template,
                chat,
                chat.count,
                addAssistantTurn,
                &buffer,
                Int32(buffer.count)
            )
        }
        guard written >= 0 else {
            throw SDKException(
                .generationFailed,
                "llama.cpp does not support this model's chat template",
                recovery: "Pass applyChatTemplate: false and format the prompt yourself"
            )
        }
        return String(decoding: buffer[..<Int(written)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Tokens of `text`. A prompt (`prompt: true`) gets the BOS token and its special tokens
    /// parsed; text that continues a prompt gets neither, unless `parseSpecial`.
    static func tokenize(
        _ text: String,
        vocab: OpaquePointer?,
        prompt: Bool = true,
        parseSpecial: Bool? = nil
    ) throws -> [llama_token] {
        let length = Int32(text.utf8.count)
        let special = parseSpecial ?? prompt
        var tokens = [llama_token](repeating: 0, count: Int(length) + 8)
        var count = llama.llama_tokenize(vocab, text, length, &tokens, Int32(tokens.count), prompt, special)
        if count < 0, count != Int32.min {
            tokens = [llama_token](repeating: 0, count: Int(-count))
            count = llama.llama_tokenize(vocab, text, length, &tokens, Int32(tokens.count), prompt, special)
        }
        guard count >= 0 else { throw SDKException(.generationFailed, "llama.cpp could not tokenize the prompt") }
        return Array(tokens.prefix(Int(count)))
    }

    static func piece(
        _ token: llama_token,
        vocab: OpaquePointer?,
        buffer: inout [CChar],
        special: Bool = false
    ) -> [UInt8] {
        var n = llama.llama_token_to_piece(vocab, token, &buffer, Int32(buffer.count), 0, special)
        if n < 0 {
            buffer = [CChar](repeating: 0, count: Int(-n))
            n = llama.llama_token_to_piece(vocab, token, &buffer, Int32(buffer.count), 0, special)
        }
        return n > 0 ? buffer[..<Int(n)].map { UInt8(bitPattern: $0) } : []
    }

    // MARK: Scoring

    func logLikelihoods(of continuations: [String], after prompt: String) async throws -> [Double] {
        let engine = self.engine
        let contextLength = self.contextLength
        let modelId = model.id
        return try await worker.run {
            try Self.score(continuations, after: prompt, engine: engine, contextLength: contextLength, modelId: modelId)
        }
    }

    /// Evaluates the prompt once (reusing the cached prefix), then each continuation in one
    /// batch with logits at every position, summing the log-softmax of its tokens. The
    /// continuation's cells are removed afterwards, so the cache still holds the prompt.
    private static func score(
        _ continuations: [String],
        after prompt: String,
        engine: Engine,
        contextLength: Int,
        modelId: String
    ) throws -> [Double] {
        guard let context = engine.context else {
            throw SDKException(.modelNotLoaded, "Model '\(modelId)' was unloaded")
        }
        let memory = llama.llama_get_memory(context)
        let tokens = try tokenize(prompt, vocab: engine.vocab)
        let pieces = try continuations.map { try tokenize($0, vocab: engine.vocab, prompt: false) }
        let longest = pieces.map(\.count).max() ?? 0
        guard !tokens.isEmpty, tokens.count + longest < contextLength else {
            throw SDKException(.contextLengthExceeded, "The prompt and continuation do not fit the context")
        }
        guard longest <= engine.batchSize else {
            throw SDKException(.invalidInput, "A continuation is longer than one batch (\(engine.batchSize) tokens)")
        }
        let adapters = try engine.resolve(nil)
        try engine.useAdapters(adapters)
        let sameAdapters = engine.slotAdapters[0] == adapters
        engine.slotAdapters[0] = adapters
        _ = try evaluatePrompt(tokens, engine: engine, context: context, reusePrefix: sameAdapters) { false }
        let vocabSize = Int(llama.llama_vocab_n_tokens(engine.vocab))
        let promptLogits = Array(UnsafeBufferPointer(start: llama.llama_get_logits_ith(context, -1)!, count: vocabSize))

        var scores: [Double] = []
        var batch = llama.llama_batch_init(Int32(max(longest, 1)), 0, 1)
        defer { llama.llama_batch_free(batch) }
        for piece in pieces {
            guard !piece.isEmpty else {
                scores.append(0)
                continue
            }
            var total = logSoftmax(promptLogits, at: piece[0])
            if piece.count > 1 {
                batch.n_tokens = Int32(piece.count - 1)
                for index in 0..<(piece.count - 1) {
                    batch.token[index] = piece[index]
                    batch.pos[index] = llama_pos(tokens.count + index)
                    batch.n_seq_id[index] = 1
                    batch.seq_id[index]![0] = 0
                    batch.logits[index] = 1
                }
                let rc = llama.llama_decode(context, batch)
                defer { _ = llama.llama_memory_seq_rm(memory, 0, Int32(tokens.count), -1) }
                guard rc == 0 else { throw SDKException(.generationFailed, "llama_decode failed (code \(rc))") }
                for index in 0..<(piece.count - 1) {
                    let logits = UnsafeBufferPointer(
                        start: llama.llama_get_logits_ith(context, Int32(index))!,
                        count: vocabSize
                    )
                    total += logSoftmax(logits, at: piece[index + 1])
                }
            }
            scores.append(total)
        }
        return scores
    }

    private static func logSoftmax(_ logits: some Collection<Float>, at token: llama_token) -> Double {
        let values = Array(logits)
        let peak = Double(values.max() ?? 0)
        let sum = values.reduce(0.0) { $0 + exp(Double($1) - peak) }
        return Double(values[Int(token)]) - peak - log(sum)
    }

    /// Brings the context's memory to `tokens`: keeps the longest common prefix with what it
    /// holds (when `reusePrefix`; at least one token is always decoded, for its logits) and
    /// decodes the rest in chunks no larger than the batch, checking `isCancelled` before each.
    ///
    /// - Returns: `false` when cancelled before the prompt was fully evaluated.
    private static func evaluatePrompt(
        _ tokens: [llama_token],
        engine: Engine,
        context: OpaquePointer,
        reusePrefix: Bool,
        isCancelled: () -> Bool
    ) throws -> Bool {
        let memory = llama.llama_get_memory(context)
        var reused = 0
        if reusePrefix {
            let limit = min(engine.slotCaches[0].count, tokens.count - 1)
            while reused < limit, engine.slotCaches[0][reused] == tokens[reused] { reused += 1 }
        }
        if reused > 0, llama.llama_memory_seq_rm(memory, 0, Int32(reused), -1) {
            engine.slotCaches[0].removeLast(engine.slotCaches[0].count - reused)
        } else {
            reused = 0
            _ = llama.llama_memory_seq_rm(memory, 0, -1, -1)
            engine.slotCaches[0] = []
        }
        var batchTokens = tokens
        var offset = reused
        while offset < tokens.count {
            if isCancelled() { return false }
            let count = min(engine.batchSize, tokens.count - offset)
            let rc = batchTokens.withUnsafeMutableBufferPointer { buffer in
                llama.llama_decode(context, llama.llama_batch_get_one(buffer.baseAddress! + offset, Int32(count)))
            }
            guard rc == 0 else {
                engine.slotCaches[0] = []
                _ = llama.llama_memory_seq_rm(memory, 0, -1, -1)
                throw SDKException(.generationFailed, "llama_decode failed on the prompt (code \(rc))")
            }
            engine.slotCaches[0] += tokens[offset..<offset + count]
            offset += count
        }
        return true
    }

    // MARK: Generation

    func generate(
        _ request: LLMServiceRequest,
        onToken: @escaping @Sendable ([UInt8]) -> TokenDisposition
    ) async throws -> LLMServiceResult {
        try await decoder.generate(request, onToken: onToken)
    }

    /// penalties → top-k → top-p → temperature → draw, or greedy when temperature is 0.
    static func makeSampler(
        _ params: SamplingParameters,
        vocab: OpaquePointer?
    ) -> UnsafeMutablePointer<llama_sampler> {
        let chain = llama.llama_sampler_chain_init(llama.llama_sampler_chain_default_params())!
        if params.repetitionPenalty != 1 {
            llama.llama_sampler_chain_add(
                chain,
                llama.llama_sampler_init_penalties(
                    llama.llama_vocab_n_tokens(vocab),
                    64,
                    params.repetitionPenalty,
                    0,
                    0
                )
            )
        }
        if params.temperature <= 0 {
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_greedy())
        } else {
            if params.topK > 0 {
                llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_top_k(Int32(params.topK)))
            }
            if params.topP < 1 { llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_top_p(params.topP, 1)) }
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_temp(params.temperature))
            llama.llama_sampler_chain_add(
                chain,
                llama.llama_sampler_init_dist(params.seed ?? UInt32.random(in: 0..<UInt32.max))
            )
        }
        return chain
    }
}
