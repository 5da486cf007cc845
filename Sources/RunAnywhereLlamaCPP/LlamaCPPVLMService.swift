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

/// A vision-language model in llama.cpp: a GGUF language model and its vision projector,
/// loaded by libmtmd.
///
/// A request's images are decoded by libmtmd's helper (stb_image) after the SDK has checked
/// their structure and size, scaled and split the way the projector's preprocessor wants,
/// encoded into embeddings and evaluated in place of the prompt's image markers; the reply
/// is then sampled like any other. One generation runs at a time, on the service's own
/// ``WorkerThread``, with the whole prompt evaluated anew (image embeddings are not cached).
actor LlamaCPPVLMService: LLMService {
    nonisolated let model: ModelInfo
    nonisolated let contextLength: Int
    nonisolated let chatTemplate: String?
    nonisolated let imageMarker: String?
    private let engine: Engine
    private let worker: WorkerThread

    /// The raw handles. Only touched on `worker`, except the vocabulary (see `withVocabulary`).
    final class Engine: @unchecked Sendable {
        var model: OpaquePointer?
        var context: OpaquePointer?
        /// The `mtmd_context *`: the projector and its image preprocessor.
        var vision: OpaquePointer?
        let vocab: OpaquePointer?
        let batchSize: Int
        let defaultThreads: Int32
        private let alive = Mutex(true)

        init(model: OpaquePointer, context: OpaquePointer, vision: OpaquePointer, batchSize: Int, threads: Int32) {
            self.model = model
            self.context = context
            self.vision = vision
            self.vocab = llama.llama_model_get_vocab(model)
            self.batchSize = batchSize
            self.defaultThreads = threads
        }

        func free() {
            alive.withLock { alive in
                alive = false
                if let vision { llama.mtmd_free(vision) }
                if let context { llama.llama_free(context) }
                if let model { llama.llama_model_free(model) }
                vision = nil
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

    private init(model: ModelInfo, engine: Engine, worker: WorkerThread, contextLength: Int, chatTemplate: String?) {
        self.model = model
        self.engine = engine
        self.worker = worker
        self.contextLength = contextLength
        self.chatTemplate = chatTemplate
        self.imageMarker = String(nullableCString: llama.mtmd_default_marker())
    }

    static func load(
        model: ModelInfo,
        configuration: LLMLoadConfiguration,
        useGPU: Bool
    ) async throws -> LlamaCPPVLMService {
        let modelFile = try model.localFile()
        // The VLM capability has checked the pair from its headers (VisionProjectorFile) before
        // asking for this load; libmtmd's own refusal is caught below.
        let projectorFile = try model.localVisionProjectorFile()
        let threads = Int32(configuration.threads ?? ProcessInfo.processInfo.activeProcessorCount)
        let worker = WorkerThread(name: "llama.vlm.\(model.id)")
        let engine: Engine
        do {
            engine = try await worker.run { () throws -> Engine in
                try Self.open(
                    modelFile.path,
                    projector: projectorFile,
                    configuration: configuration,
                    threads: threads,
                    useGPU: useGPU
                )
            }
        } catch {
            worker.stop()
            throw error
        }
        let template = llama.llama_model_chat_template(engine.model, nil).map { String(cString: $0) }
        return LlamaCPPVLMService(
            model: model,
            engine: engine,
            worker: worker,
            contextLength: Int(llama.llama_n_ctx(engine.context)),
            chatTemplate: template
        )
    }

    private static func open(
        _ path: String,
        projector: URL,
        configuration: LLMLoadConfiguration,
        threads: Int32,
        useGPU: Bool
    ) throws -> Engine {
        let handle = try LlamaCPPLLMService.openModel(path, useGPU: useGPU)
        let contextLength = LlamaCPPLLMService.contextLength(configuration, model: handle)
        var contextParams = llama.llama_context_default_params()
        contextParams.n_ctx = UInt32(contextLength)
        contextParams.n_batch = UInt32(min(contextLength, 2048))
        contextParams.n_ubatch = UInt32(min(contextLength, 512))
        contextParams.n_threads = threads
        contextParams.n_threads_batch = threads
        contextParams.no_perf = true
        guard let context = llama.llama_init_from_model(handle, contextParams) else {
            llama.llama_model_free(handle)
            throw SDKException(
                .modelLoadFailed,
                "llama.cpp could not create a \(contextLength)-token context for \(path)"
            )
        }
        var visionParams = llama.mtmd_context_params_default()
        visionParams.use_gpu = useGPU
        visionParams.n_threads = threads
        visionParams.print_timings = false
        visionParams.warmup = false
        LlamaCPP.lastError.withLock { $0 = nil }
        guard let vision = llama.mtmd_init_from_file(projector.path, handle, visionParams) else {
            llama.llama_free(context)
            llama.llama_model_free(handle)
            let reason = LlamaCPP.lastError.withLock { $0 } ?? "no reason given"
            throw SDKException(
                .invalidModelFormat,
                "libmtmd could not load the vision projector \(projector.lastPathComponent) with this model: \(reason)",
                recovery: "Use the mmproj file published with the model"
            )
        }
        guard llama.mtmd_support_vision(vision) else {
            llama.mtmd_free(vision)
            llama.llama_free(context)
            llama.llama_model_free(handle)
            throw SDKException(.invalidModelFormat, "\(projector.lastPathComponent) has no vision encoder")
        }
        return Engine(
            model: handle,
            context: context,
            vision: vision,
            batchSize: Int(contextParams.n_batch),
            threads: threads
        )
    }

    func unload() async {
        let engine = self.engine
        _ = try? await worker.run { engine.free() }
        worker.stop()
    }

    // MARK: Text

    // Vision prompts still go through llama.cpp's built-in formats, with the image markers in
    // the turns' text; the result says so.
    nonisolated var promptFormatting: PromptFormatting { .builtIn }

    func formatChat(_ messages: [ChatMessage], addAssistantTurn: Bool) async throws -> String {
        try LlamaCPPLLMService.applyTemplate(chatTemplate, messages, addAssistantTurn: addAssistantTurn)
    }

    func tokenCount(_ text: String) async throws -> Int {
        guard let count = try engine.withVocabulary({ try LlamaCPPLLMService.tokenize(text, vocab: $0).count }) else {
            throw SDKException(.modelNotLoaded, "Model '\(model.id)' was unloaded")
        }
        return count
    }

    // MARK: Generation

    func generate(
        _ request: LLMServiceRequest,
        onToken: @escaping @Sendable ([UInt8]) -> TokenDisposition
    ) async throws -> LLMServiceResult {
        let engine = self.engine
        let contextLength = self.contextLength
        let modelId = model.id
        return try await worker.run {
            try Self.run(request, engine: engine, contextLength: contextLength, modelId: modelId, onToken: onToken)
        }
    }

    private static func run(
        _ request: LLMServiceRequest,
        engine: Engine,
        contextLength: Int,
        modelId: String,
        onToken: ([UInt8]) -> TokenDisposition
    ) throws -> LLMServiceResult {
        guard let context = engine.context, let vision = engine.vision else {
            throw SDKException(.modelNotLoaded, "Model '\(modelId)' was unloaded")
        }
        guard request.loraAdapters?.isEmpty ?? true else {
            throw SDKException(.backendError, "LoRA adapters are not supported on vision-language models")
        }
        let threads = request.threads.map(Int32.init) ?? engine.defaultThreads
        let promptThreads = request.promptThreads.map(Int32.init) ?? threads
        if llama.llama_n_threads(context) != threads || llama.llama_n_threads_batch(context) != promptThreads {
            llama.llama_set_n_threads(context, threads, promptThreads)
        }
        let chunks = try tokenize(request, vision: vision)
        defer { llama.mtmd_input_chunks_free(chunks) }
        let count = llama.mtmd_input_chunks_size(chunks)
        var imageTokens = 0
        for index in 0..<count {
            let chunk = llama.mtmd_input_chunks_get(chunks, index)
            if llama.mtmd_input_chunk_get_type(chunk) == MTMD_INPUT_CHUNK_TYPE_IMAGE {
                imageTokens += llama.mtmd_input_chunk_get_n_tokens(chunk)
            }
        }
        let promptTokens = llama.mtmd_helper_get_n_tokens(chunks)
        let positions = Int(llama.mtmd_helper_get_n_pos(chunks))
        guard positions < contextLength else {
            throw SDKException(
                .contextLengthExceeded,
                "The prompt takes \(positions) positions (\(imageTokens) tokens for its images), but the context "
                    + "holds \(contextLength)",
                recovery: "Load the model with a larger contextLength, or send fewer images"
            )
        }
        func result(_ reason: LLMServiceResult.StopReason, _ generated: Int) -> LLMServiceResult {
            LLMServiceResult(
                promptTokens: promptTokens,
                generatedTokens: generated,
                stopReason: reason,
                imageTokens: imageTokens
            )
        }

        let memory = llama.llama_get_memory(context)
        llama.llama_memory_clear(memory, true)
        var position: llama_pos = 0
        for index in 0..<count {
            if request.cancellation.isCancelled { return result(.cancelled, 0) }
            // libmtmd adds a text chunk's length to this, and sets it after an image chunk.
            var next = position
            let rc = llama.mtmd_helper_eval_chunk_single(
                vision,
                context,
                llama.mtmd_input_chunks_get(chunks, index),
                position,
                0,
                Int32(engine.batchSize),
                index == count - 1,
                &next
            )
            guard rc == 0 else {
                llama.llama_memory_clear(memory, true)
                throw SDKException(.generationFailed, "libmtmd could not evaluate the prompt (code \(rc))")
            }
            position = next
        }

        let sampler = LlamaCPPLLMService.makeSampler(request.sampling, vocab: engine.vocab)
        defer { llama.llama_sampler_free(sampler) }
        let constrained = try request.grammar.map { grammar throws(SDKException) in
            try GrammarSampler(grammar, vocab: engine.vocab, chain: sampler, greedy: request.sampling.temperature <= 0)
        }
        var generated = 0
        var pieceBuffer = [CChar](repeating: 0, count: 256)
        while true {
            if request.cancellation.isCancelled { return result(.cancelled, generated) }
            var token: llama_token
            if let constrained {
                // End of generation only comes once the grammar is complete; accepting it would abort.
                token = constrained.sample(context, vocab: engine.vocab)
                if llama.llama_vocab_is_eog(engine.vocab, token) { return result(.endOfSequence, generated) }
            } else {
                token = llama.llama_sampler_sample(sampler, context, -1)
                if !request.ignoreEndOfSequence, llama.llama_vocab_is_eog(engine.vocab, token) {
                    return result(.endOfSequence, generated)
                }
            }
            generated += 1
            let piece = LlamaCPPLLMService.piece(token, vocab: engine.vocab, buffer: &pieceBuffer)
            if onToken(piece) == .stop { return result(.callback, generated) }
            if generated >= request.maxTokens { return result(.maxTokens, generated) }
            if Int(position) + 1 >= contextLength { return result(.contextFull, generated) }
            let rc = llama.llama_decode(context, llama.llama_batch_get_one(&token, 1))
            guard rc == 0 else { throw SDKException(.generationFailed, "llama_decode failed (code \(rc))") }
            position += 1
        }
    }

    /// The prompt's text and images as libmtmd's chunks (the caller frees them).
    private static func tokenize(_ request: LLMServiceRequest, vision: OpaquePointer) throws -> OpaquePointer {
        var bitmaps: [OpaquePointer?] = []
        defer {
            for bitmap in bitmaps { llama.mtmd_bitmap_free(bitmap) }
        }
        for (index, image) in request.images.enumerated() {
            bitmaps.append(try bitmap(image, vision: vision, index: index, of: request.images.count))
        }
        guard let chunks = llama.mtmd_input_chunks_init() else {
            throw SDKException(.generationFailed, "libmtmd could not allocate the prompt")
        }
        let rc = request.prompt.withCString { text in
            var input = mtmd_input_text(text: text, text_len: strlen(text), add_special: true, parse_special: true)
            return llama.mtmd_tokenize(vision, chunks, &input, &bitmaps, bitmaps.count)
        }
        guard rc == 0 else {
            llama.mtmd_input_chunks_free(chunks)
            switch rc {
            case 1:
                throw SDKException(
                    .invalidInput,
                    "The prompt's image markers do not match its \(bitmaps.count) image(s)",
                    recovery:
                        "Do not write the marker \(String(nullableCString: llama.mtmd_default_marker())) in message text"
                )
            case 2:
                throw SDKException(.invalidImage, "The projector's preprocessor could not prepare the image")
            default:
                throw SDKException(.generationFailed, "libmtmd could not tokenize the prompt (code \(rc))")
            }
        }
        return chunks
    }

    /// An `mtmd_bitmap *` for a checked image (the caller frees it).
    private static func bitmap(
        _ image: VLMImage,
        vision: OpaquePointer,
        index: Int,
        of count: Int
    ) throws -> OpaquePointer {
        let which = count == 1 ? "The image" : "Image \(index + 1) of \(count)"
        switch image.source {
        case .encoded(let data):
            let wrapper = data.withUnsafeBytes { raw in
                llama.mtmd_helper_bitmap_init_from_buf(
                    vision,
                    raw.bindMemory(to: UInt8.self).baseAddress,
                    raw.count,
                    false,
                    llama.mtmd_helper_init_opt_default()
                )
            }
            if let video = wrapper.video_ctx { llama.mtmd_helper_video_free(video) }
            guard let bitmap = wrapper.bitmap else {
                throw SDKException(.invalidImage, "\(which) could not be decoded: its compressed data is damaged")
            }
            guard !llama.mtmd_bitmap_is_audio(bitmap) else {
                llama.mtmd_bitmap_free(bitmap)
                throw SDKException(.invalidImage, "\(which) is not an image")
            }
            return bitmap
        case .rgb(let pixels, let width, let height):
            let bitmap = pixels.withUnsafeBytes { raw in
                llama.mtmd_bitmap_init(UInt32(width), UInt32(height), raw.bindMemory(to: UInt8.self).baseAddress)
            }
            guard let bitmap else { throw SDKException(.invalidImage, "\(which) could not be made into a bitmap") }
            return bitmap
        case .file:
            // The LLM capability reads files before a request reaches a backend.
            throw SDKException(.internalError, "\(which) reached the engine unread")
        }
    }
}
