import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Text generation: owns the loaded language model and everything around the engine
/// call: prompt formatting, validation, stop sequences, thinking extraction, metrics,
/// cancellation, streaming and events.
///
/// The SDK keeps two: one for language models and one for vision-language models (a
/// language model with a vision projector), so an app can hold one of each; the second
/// also takes images.
package actor LLMCapability {
    /// Which models a capability loads.
    enum Kind: Sendable {
        /// Language models (``ModelCategory/llm``).
        case text
        /// Vision-language models (``ModelCategory/vision``), which take images.
        case vision
    }

    let kind: Kind
    private let services: ServiceRegistry
    private let events: EventBus
    let lifecycle: ModelLifecycle<any LLMService>
    let registry: ModelRegistry
    let router: ModelRouter
    /// The loaded model's LoRA adapters; emptied whenever the model goes.
    var lora = LoRABook()
    private var active: [UUID: CancellationFlag] = [:]
    private let logger = SDKLogger(category: "LLM")

    init(services: ServiceRegistry, registry: ModelRegistry, events: EventBus, router: ModelRouter, kind: Kind = .text)
    {
        self.kind = kind
        self.router = router
        self.services = services
        self.events = events
        self.registry = registry
        self.lifecycle = ModelLifecycle(
            category: kind == .text ? .llm : .vision,
            registry: registry,
            events: events
        ) { service in
            await service.unload()
        }
    }

    /// What a generation is asked to continue.
    enum Input: Sendable {
        case prompt(String)
        case messages([ChatMessage])
    }

    // MARK: Lifecycle

    func load(_ id: String, configuration: LLMLoadConfiguration) async throws(SDKException) {
        if kind == .vision, await lifecycle.currentModel?.id != id {
            try Self.checkVisionPair(registry.get(id))
        }
        let services = self.services
        let kind = self.kind
        let router = self.router
        let before = await lifecycle.currentModel?.id
        do {
            try await lifecycle.load(id) { model in
                let load: RoutedService<any LLMService>.Loader = { model in
                    if model.remote == nil {
                        // After the previous model left: what is free now is what this one gets.
                        let fit = ModelCompatibilityResult.check(
                            model,
                            configuration: configuration,
                            profile: .current()
                        )
                        if fit.weightsBytes > 0, !fit.fitsMemory {
                            throw SDKException(
                                .insufficientMemory,
                                fit.reasons.joined(separator: "; "),
                                recovery: "Load it with a smaller contextLength, or free memory"
                            )
                        }
                    }
                    let provider =
                        try kind == .text ? services.llmProvider(for: model) : services.vlmProvider(for: model)
                    return try await provider.factory(model, configuration)
                }
                guard model.remote != nil else { return try await load(model) }
                return try await RoutedLLMService.load(model: model, router: router, local: load, remote: load)
            }
        } catch {
            if await lifecycle.currentModel?.id != before { lora = LoRABook() }
            throw error
        }
        // A model loaded anew has none of the old one's adapters; the same model stays as it was.
        if before != id { lora = LoRABook() }
    }

    /// A vision-language model's projector, checked against its language model before the
    /// model loaded now is unloaded to make room: a pair that cannot load leaves it in place.
    /// Only GGUF pairs (llama.cpp's); other formats are for their backend to judge.
    private static func checkVisionPair(_ model: ModelInfo) throws(SDKException) {
        guard model.category == .vision, model.format == .gguf, model.localPath != nil else { return }
        let projector = try model.localVisionProjectorFile()
        try VisionProjectorFile(contentsOf: projector).check(
            against: try model.localFile(),
            projectorName: projector.lastPathComponent
        )
    }

    func unload() async {
        cancelAll()
        await lifecycle.unload()
        lora = LoRABook()
    }

    var currentModel: ModelInfo? { get async { await lifecycle.currentModel } }

    // MARK: Generation

    /// Asks every running generation to stop after its current token.
    func cancelAll() {
        for flag in active.values { flag.cancel() }
    }

    func generate(_ input: Input, options: LLMGenerationOptions) async throws(SDKException) -> LLMGenerationResult {
        try await run(input, options: options, requested: .now, cancellation: CancellationFlag(), onSegment: nil)
    }

    /// Streams a generation. Ending iteration early (or cancelling the consuming task)
    /// cancels the generation.
    /// Its time to first token counts from `requested`: when the caller asked, before any check.
    nonisolated func stream(
        _ input: Input,
        options: LLMGenerationOptions,
        requested: ContinuousClock.Instant = .now
    ) -> AsyncThrowingStream<LLMStreamEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: LLMStreamEvent.self)
        let flag = CancellationFlag()
        let task = Task {
            do {
                let result = try await self.run(input, options: options, requested: requested, cancellation: flag) {
                    segment in
                    continuation.yield(.token(text: segment.text, isThinking: segment.isThinking))
                }
                continuation.yield(.completed(result))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { termination in
            if case .cancelled = termination {
                flag.cancel()
                task.cancel()
            }
        }
        return stream
    }

    /// A generation asked for at `requested`: the start of its time to first token, before
    /// anything is checked or the prompt written, as the raw engine's benchmark starts its clock.
    private func run(
        _ input: Input,
        options: LLMGenerationOptions,
        requested: ContinuousClock.Instant,
        cancellation: CancellationFlag,
        onSegment: (@Sendable (GenerationTextProcessor.Segment) -> Void)?
    ) async throws(SDKException) -> LLMGenerationResult {
        try options.validate()
        try Self.validate(input)
        let loaded = try await loadedService()
        guard let routed = loaded as? RoutedLLMService else {
            return try await attempt(
                input,
                options,
                cancellation,
                onSegment,
                service: loaded,
                target: .local,
                requested: requested
            )
        }
        let plan: [ExecutionTarget]
        if let pinned = options.pinnedTarget {
            plan = [pinned]
        } else {
            plan = try router.targets(for: routed.model)
        }
        // Once text reached the caller, a failed server cannot be replaced by this device unseen.
        let output = AtomicFlag()
        return try await routed.sides.run(plan, shown: output) { target throws(SDKException) in
            // Loading the side is inside: a server down at its first use falls back too.
            let service = try await routed.sides.service(for: target)
            return try await attempt(
                input,
                options,
                cancellation,
                { segment in
                    output.set()
                    onSegment?(segment)
                },
                service: service,
                target: target,
                requested: requested
            )
        }
    }

    /// One generation on one side of the model; its times count from `requested`.
    private func attempt(
        _ input: Input,
        _ options: LLMGenerationOptions,
        _ cancellation: CancellationFlag,
        _ onSegment: (@Sendable (GenerationTextProcessor.Segment) -> Void)?,
        service: any LLMService,
        target: ExecutionTarget,
        requested: ContinuousClock.Instant
    ) async throws(SDKException) -> LLMGenerationResult {
        let images = try Self.images(in: input, service: service)
        let adapters = try await prepareLoRA(options.loraAdapters, service: service)
        let model = service.model
        let generationId = UUID()
        let start = requested
        active[generationId] = cancellation
        defer { active[generationId] = nil }
        events.publish(.generationStarted(generationId: generationId, modelId: model.id))

        do {
            let (prompt, messages) = try await Self.format(input, options: options, service: service)
            let tags = service.reasoningTags
            var request = LLMServiceRequest(
                prompt: prompt,
                maxTokens: options.maxTokens,
                sampling: options.sampling,
                threads: options.threads,
                promptThreads: options.promptThreads,
                truncatePromptToFit: options.truncatePromptToFit,
                ignoreEndOfSequence: options.ignoreEndOfSequence,
                reusePrefix: options.reusePromptCache,
                cancellation: cancellation,
                grammar: options.grammar,
                loraAdapters: adapters,
                images: images,
                messages: messages,
                responseSchema: options.responseSchema,
                tools: options.nativeTools,
                toolChoice: options.nativeToolChoice
            )
            request.preservedTokens = options.preservedTokens
            // A prompt that leaves the model inside an opened reasoning block starts it there.
            let processor = GenerationTextProcessor(
                stopSequences: options.stopSequences,
                tags: tags,
                startsInReasoning: tags.opensBlock(prompt)
            )
            let progress = Mutex(Progress(processor: processor))
            let serviceResult = try await withTaskCancellationHandler {
                try await service.generate(request) { bytes in
                    let now = ContinuousClock.now
                    let (segments, stop) = progress.withLock { progress in
                        if progress.firstToken == nil { progress.firstToken = now }
                        progress.lastToken = now
                        let segments = progress.processor.consume(bytes)
                        return (segments, progress.processor.stopSequenceHit)
                    }
                    if let onSegment { segments.forEach(onSegment) }
                    return stop ? .stop : .continue
                }
            } onCancel: {
                cancellation.cancel()
            }
            let end = ContinuousClock.now
            let final = progress.withLock { progress in
                let tail = progress.processor.finish()
                return (tail, progress)
            }
            if let onSegment { final.0.forEach(onSegment) }
            var result = Self.makeResult(
                model: model,
                progress: final.1,
                service: serviceResult,
                start: start,
                end: end
            )
            if kind == .vision { result.imageTokens = serviceResult.imageTokens }
            result.executedOn = target
            result.promptFormatting = messages == nil ? .raw : service.promptFormatting
            result.toolCalls = serviceResult.toolCalls
            if result.finishReason == .cancelled {
                events.publish(
                    .generationCancelled(generationId: generationId, modelId: model.id, tokens: result.generatedTokens)
                )
            } else {
                events.publish(
                    .generationCompleted(
                        generationId: generationId,
                        modelId: model.id,
                        tokens: result.generatedTokens,
                        durationMs: result.totalMs,
                        tokensPerSecond: result.tokensPerSecond
                    )
                )
            }
            return result
        } catch {
            let sdkError = SDKException.wrap(error, as: .generationFailed, "Generation failed")
            events.publish(.generationFailed(generationId: generationId, modelId: model.id, error: sdkError))
            logger.error("Generation failed: \(sdkError)")
            throw sdkError
        }
    }

    /// A conversation that fits the loaded model's context with `reserve` tokens left for
    /// the reply: the system prompt, as much of `history` as fits (whole user/assistant
    /// pairs dropped from the oldest), and the new user turn, which is always kept.
    ///
    /// - Returns: The messages, and how many of `history`'s last messages they keep.
    func fitConversation(
        system: String?,
        history: [ChatMessage],
        user: String,
        reserve: Int
    ) async throws(SDKException) -> (messages: [ChatMessage], keptHistory: Int) {
        let service = try await loadedService()
        let head = system.map { [ChatMessage.system($0)] } ?? []
        var kept = history[...]
        do {
            while true {
                let messages = head + kept + [.user(user)]
                let tokens = try await service.tokenCount(
                    try await service.formatChat(messages, addAssistantTurn: true)
                )
                if tokens + reserve <= service.contextLength || kept.isEmpty { return (messages, kept.count) }
                kept = kept.dropFirst(min(2, kept.count))  // the oldest user/assistant pair
            }
        } catch {
            throw SDKException.wrap(error, as: .generationFailed, "Preparing the conversation failed")
        }
    }

    /// The loaded model's service, or `.modelNotLoaded`.
    package func loadedService() async throws(SDKException) -> any LLMService {
        guard let service = await lifecycle.currentService else {
            throw SDKException(
                .modelNotLoaded,
                kind == .text ? "No language model is loaded" : "No vision-language model is loaded",
                recovery: kind == .text
                    ? "Call RunAnywhere.loadModel(_:) first" : "Call RunAnywhere.loadVLMModel(_:) first"
            )
        }
        return service
    }

    /// The images of a conversation, in order, each read and checked before any reaches the
    /// engine.
    ///
    /// - Throws: `.invalidImage` naming the image; `.invalidInput` when the model takes none.
    private static func images(in input: Input, service: any LLMService) throws(SDKException) -> [VLMImage] {
        guard case .messages(let messages) = input else { return [] }
        let all = messages.flatMap { $0.images ?? [] }
        guard !all.isEmpty else { return [] }
        guard service.imageMarker != nil else {
            throw SDKException(
                .invalidInput,
                "Model '\(service.model.id)' takes no images",
                recovery: "Load a vision-language model (a model with its vision projector) with loadVLMModel(_:)"
            )
        }
        var prepared: [VLMImage] = []
        for (index, image) in all.enumerated() {
            do {
                prepared.append(try image.prepared().image)
            } catch {
                throw all.count == 1
                    ? error : SDKException(.invalidImage, "Image \(index + 1) of \(all.count): \(error.message)")
            }
        }
        return prepared
    }

    private struct Progress: Sendable {
        var processor: GenerationTextProcessor
        var firstToken: ContinuousClock.Instant?
        var lastToken: ContinuousClock.Instant?
    }

    private static func validate(_ input: Input) throws(SDKException) {
        switch input {
        case .prompt(let prompt):
            guard !prompt.allSatisfy(\.isWhitespace) else {
                throw SDKException(.emptyPrompt, "The prompt is empty")
            }
        case .messages(let messages):
            guard
                messages.contains(where: {
                    !$0.content.allSatisfy(\.isWhitespace) || $0.images?.isEmpty == false
                })
            else {
                throw SDKException(.emptyPrompt, "The conversation has no message with content")
            }
        }
    }

    /// The text the engine sees: the model's chat template around the turns, unless the
    /// caller asked for the raw prompt.
    private static func format(
        _ input: Input,
        options: LLMGenerationOptions,
        service: any LLMService
    ) async throws -> (prompt: String, messages: [ChatMessage]?) {
        var messages: [ChatMessage]
        switch input {
        case .prompt(let prompt):
            guard options.applyChatTemplate else {
                guard let system = options.systemPrompt, !system.isEmpty else { return (prompt, nil) }
                return (system + "\n\n" + prompt, nil)
            }
            messages = [.user(prompt)]
        case .messages(let turns) where !options.nativeTools.isEmpty || options.nativeToolChoice != nil:
            // A backend that calls tools natively takes the turns as they are.
            messages = turns
        case .messages(let turns):
            let mentionsTools = turns.contains { $0.toolCalls?.isEmpty == false || $0.toolCallId != nil }
            messages = mentionsTools ? ToolCallFormat.detect(chatTemplate: service.chatTemplate).render(turns) : turns
            if let marker = service.imageMarker {
                // One marker per image, before the turn's text, as the VLMs' own chat formats put them.
                messages = messages.map { message in
                    guard let images = message.images, !images.isEmpty else { return message }
                    var marked = message
                    marked.content = String(repeating: marker + "\n", count: images.count) + message.content
                    return marked
                }
            }
        }
        if let system = options.systemPrompt, !system.isEmpty, messages.first?.role != .system {
            messages.insert(.system(system), at: 0)
        }
        return (try await service.formatChat(messages, addAssistantTurn: true, reasoning: options.reasoning), messages)
    }

    private static func makeResult(
        model: ModelInfo,
        progress: Progress,
        service: LLMServiceResult,
        start: ContinuousClock.Instant,
        end: ContinuousClock.Instant
    ) -> LLMGenerationResult {
        let totalMs = start.duration(to: end).milliseconds
        let ttftMs = progress.firstToken.map { start.duration(to: $0).milliseconds } ?? totalMs
        // Speed after the first token: n-1 decode steps lie between the first and last token.
        var tokensPerSecond = 0.0
        if service.generatedTokens > 1, let first = progress.firstToken, let last = progress.lastToken {
            let seconds = first.duration(to: last).milliseconds / 1000
            if seconds > 0 { tokensPerSecond = Double(service.generatedTokens - 1) / seconds }
        }
        let promptTPS = ttftMs > 0 ? Double(service.promptTokens) / (ttftMs / 1000) : 0
        let finish: LLMFinishReason =
            if progress.processor.stopSequenceHit {
                .stopSequence
            } else {
                switch service.stopReason {
                case .endOfSequence, .callback: .stop
                case .maxTokens: .length
                case .contextFull: .contextFull
                case .cancelled: .cancelled
                }
            }
        let thinking = progress.processor.thinking.trimmed()
        var result = LLMGenerationResult(
            text: progress.processor.answer,
            thinkingContent: progress.processor.sawThinking ? thinking : nil,
            modelId: model.id,
            promptTokens: service.promptTokens,
            generatedTokens: service.generatedTokens,
            timeToFirstTokenMs: ttftMs,
            tokensPerSecond: tokensPerSecond,
            promptTokensPerSecond: promptTPS,
            totalMs: totalMs,
            finishReason: finish
        )
        result.rawText = progress.processor.raw
        return result
    }
}
