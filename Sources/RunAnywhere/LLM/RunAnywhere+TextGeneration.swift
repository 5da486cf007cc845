#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// Loads a language model, unloading the one loaded before. Loading the model that is
    /// already loaded does nothing.
    ///
    /// - Parameters:
    ///   - id: A registered LLM's id.
    ///   - contextLength: Context size in tokens; by default the model's own, capped at
    ///     ``LLMLoadConfiguration/defaultContextCap``.
    ///   - threads: Decoding threads; by default all cores.
    ///   - slots: Generations decoded together in one batch, each with `contextLength` of
    ///     cache (see ``LLMLoadConfiguration/slots``); 1 for a single caller.
    ///   - chatTemplate: A Jinja chat template to use instead of the model's own (see
    ///     ``LLMLoadConfiguration/chatTemplate``).
    /// - Throws: `.invalidInput`, `.modelNotFound`, `.modelFileNotFound`, `.noBackendForModel`,
    ///   `.modelLoadFailed`, `.modelLoadInProgress`.
    public func loadModel(
        _ id: String,
        contextLength: Int? = nil,
        threads: Int? = nil,
        slots: Int = 1,
        chatTemplate: String? = nil
    ) async throws(SDKException) {
        let configuration = LLMLoadConfiguration(
            contextLength: contextLength,
            threads: threads,
            slots: slots,
            chatTemplate: chatTemplate
        )
        try configuration.validate()
        try await runtime().llm.load(id, configuration: configuration)
    }

    /// Unloads the current language model, if any.
    public func unloadModel() async throws(SDKException) {
        let runtime = try runtime()
        await runtime.llm.unload()
    }

    /// The loaded language model, if any.
    public var currentLLMModel: ModelInfo? {
        get async { try? await runtime().llm.currentModel }
    }

    /// Tokens one generation of the loaded language model can hold (prompt plus reply; per
    /// slot when it was loaded with several), if a model is loaded.
    public var currentLLMContextLength: Int? {
        get async { try? await runtime().llm.loadedService().contextLength }
    }

    /// Generates a reply to `prompt` with the loaded model.
    ///
    /// The prompt becomes a user turn in the model's chat template (with
    /// `options.systemPrompt` before it) unless `options.applyChatTemplate` is off.
    ///
    /// ```swift
    /// let result = try await RunAnywhere.generate("Write a haiku about rain.",
    ///                                             options: LLMGenerationOptions(maxTokens: 48, temperature: 0))
    /// print(result.text, "—", result.tokensPerSecond, "tok/s")
    /// ```
    ///
    /// - Throws: `.notInitialized`, `.modelNotLoaded`, `.emptyPrompt`, `.invalidInput`,
    ///   `.contextLengthExceeded`, `.generationFailed`. Cancellation is not an error: the
    ///   result's `finishReason` is `.cancelled`.
    public func generate(
        _ prompt: String,
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException) -> LLMGenerationResult {
        try await runtime().llm.generate(.prompt(prompt), options: options)
    }

    /// Streams a reply token by token; the last event is `.completed` with the result.
    ///
    /// ```swift
    /// for try await event in try await RunAnywhere.generateStream("Tell me a story.") {
    ///     if case .token(let text, false) = event { print(text, terminator: "") }
    /// }
    /// ```
    ///
    /// Stopping the iteration early cancels the generation.
    public func generateStream(
        _ prompt: String,
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException)
        -> AsyncThrowingStream<LLMStreamEvent, any Error>
    {
        let requested = ContinuousClock.now
        return try await preflight(options).stream(.prompt(prompt), options: options, requested: requested)
    }

    /// Continues a conversation using the model's own chat template.
    ///
    /// A conversation whose messages carry images (``ChatMessage/images``) goes to the loaded
    /// vision-language model (``loadVLMModel(_:contextLength:threads:)``) instead of the
    /// language model.
    public func chat(
        _ messages: [ChatMessage],
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException) -> LLMGenerationResult {
        try await capability(for: messages).generate(.messages(messages), options: options)
    }

    /// Streams the next assistant turn of a conversation; one with images goes to the loaded
    /// vision-language model.
    public func chatStream(
        _ messages: [ChatMessage],
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException)
        -> AsyncThrowingStream<LLMStreamEvent, any Error>
    {
        let requested = ContinuousClock.now
        return try await preflight(options, capability(for: messages)).stream(
            .messages(messages),
            options: options,
            requested: requested
        )
    }

    /// The prompt text the loaded language model reads for a conversation, as ``chat(_:options:)``
    /// and ``generateWithTools(messages:tools:options:toolOptions:)`` format it: the model's chat
    /// template around the turns (``LLMGenerationResult/promptFormatting`` says which), the
    /// assistant's turn opened; with `tools`, written into the conversation the way a
    /// tool-calling generation writes them for its first turn.
    ///
    /// - Throws: `.modelNotLoaded`, `.invalidTool`, or `.generationFailed` when the template
    ///   refuses the conversation.
    public func formatPrompt(
        _ messages: [ChatMessage],
        tools: [ToolDefinition] = [],
        toolOptions: ToolCallingOptions = ToolCallingOptions(),
        systemPrompt: String? = nil
    ) async throws(SDKException) -> String {
        try ToolDefinition.validate(tools)
        let service = try await runtime().llm.loadedService()
        // A model whose template writes tools reads what its template makes, as the loop runs it.
        if !tools.isEmpty, toolOptions.toolChoice != .none, toolOptions.format == nil,
            let plan = try await ToolCallingLoop.templatePlan(
                ToolCallingLoop.withSystemPrompt(messages, tools: nil, userSystem: systemPrompt),
                tools: tools,
                choice: toolOptions.toolChoice,
                parallel: toolOptions.maxParallelCalls > 1,
                reasoning: nil,
                service: service
            )
        {
            return plan.prompt
        }
        let (_, turns) = ToolCallingLoop.firstTurn(
            messages,
            tools: tools,
            toolOptions: toolOptions,
            systemPrompt: systemPrompt,
            chatTemplate: service.chatTemplate
        )
        do {
            return try await service.formatChat(turns, addAssistantTurn: true)
        } catch {
            throw SDKException.wrap(error, as: .generationFailed, "Formatting the conversation failed")
        }
    }

    /// Stops every running generation after its current token.
    public func cancelGeneration() async {
        guard let runtime = try? runtime() else { return }
        await runtime.llm.cancelAll()
    }

    /// Checks what can be checked before a stream starts, so those errors are thrown
    /// here rather than from inside the stream.
    private func preflight(
        _ options: LLMGenerationOptions,
        _ capability: LLMCapability? = nil
    ) async throws(SDKException) -> LLMCapability {
        let llm: LLMCapability
        if let capability {
            llm = capability
        } else {
            llm = try runtime().llm
        }
        try options.validate()
        _ = try await llm.loadedService()
        return llm
    }

    /// The vision-language capability for a conversation with images, else the language model's.
    private func capability(for messages: [ChatMessage]) throws(SDKException) -> LLMCapability {
        let runtime = try runtime()
        return messages.contains { $0.images?.isEmpty == false } ? runtime.vlm : runtime.llm
    }
}

extension RunAnywhere {
    /// Loads a language model, unloading the one loaded before. Loading the model that is
    /// already loaded does nothing.
    ///
    /// Calls ``RunAnywhereSDK/loadModel(_:contextLength:threads:slots:chatTemplate:)`` on the shared instance.
    public static func loadModel(
        _ id: String,
        contextLength: Int? = nil,
        threads: Int? = nil,
        slots: Int = 1,
        chatTemplate: String? = nil
    ) async throws(SDKException) {
        try await sdk().loadModel(
            id,
            contextLength: contextLength,
            threads: threads,
            slots: slots,
            chatTemplate: chatTemplate
        )
    }

    /// Unloads the current language model, if any.
    ///
    /// Calls ``RunAnywhereSDK/unloadModel()`` on the shared instance.
    public static func unloadModel() async throws(SDKException) {
        try await sdk().unloadModel()
    }

    /// Generates a reply to `prompt` with the loaded model.
    ///
    /// Calls ``RunAnywhereSDK/generate(_:options:)`` on the shared instance.
    public static func generate(
        _ prompt: String,
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException) -> LLMGenerationResult {
        try await sdk().generate(prompt, options: options)
    }

    /// Streams a reply token by token; the last event is `.completed` with the result.
    ///
    /// Calls ``RunAnywhereSDK/generateStream(_:options:)`` on the shared instance.
    public static func generateStream(
        _ prompt: String,
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException)
        -> AsyncThrowingStream<LLMStreamEvent, any Error>
    {
        try await sdk().generateStream(prompt, options: options)
    }

    /// Continues a conversation using the model's own chat template.
    ///
    /// Calls ``RunAnywhereSDK/chat(_:options:)`` on the shared instance.
    public static func chat(
        _ messages: [ChatMessage],
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException) -> LLMGenerationResult {
        try await sdk().chat(messages, options: options)
    }

    /// The prompt text the loaded language model reads for a conversation (and tools): see
    /// ``RunAnywhereSDK/formatPrompt(_:tools:toolOptions:systemPrompt:)``.
    public static func formatPrompt(
        _ messages: [ChatMessage],
        tools: [ToolDefinition] = [],
        toolOptions: ToolCallingOptions = ToolCallingOptions(),
        systemPrompt: String? = nil
    ) async throws(SDKException) -> String {
        try await sdk().formatPrompt(messages, tools: tools, toolOptions: toolOptions, systemPrompt: systemPrompt)
    }

    /// Streams the next assistant turn of a conversation.
    ///
    /// Calls ``RunAnywhereSDK/chatStream(_:options:)`` on the shared instance.
    public static func chatStream(
        _ messages: [ChatMessage],
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException)
        -> AsyncThrowingStream<LLMStreamEvent, any Error>
    {
        try await sdk().chatStream(messages, options: options)
    }

    /// The shared instance's loaded language model, if any.
    public static var currentLLMModel: ModelInfo? {
        get async { await shared?.currentLLMModel }
    }

    /// Stops every running generation of the shared instance after its current token.
    public static func cancelGeneration() async {
        await shared?.cancelGeneration()
    }
}
