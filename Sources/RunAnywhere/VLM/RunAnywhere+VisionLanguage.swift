#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// Imports a vision-language model from its two files: the language model and its vision
    /// projector (llama.cpp's `mmproj` GGUF). The projector is checked against the model
    /// before anything is written (a projector whose output width is not the model's
    /// embedding width gives `.invalidModelFormat`); both go into one model folder, and the
    /// entry's ``ModelInfo/visionProjectorFile`` names the projector.
    ///
    /// ```swift
    /// try RunAnywhere.importVLMModel(from: URL(fileURLWithPath: "SmolVLM-256M-Instruct-Q8_0.gguf"),
    ///                                projector: URL(fileURLWithPath: "mmproj-SmolVLM-256M-Instruct-Q8_0.gguf"),
    ///                                id: "smolvlm-256m", framework: .llamaCpp)
    /// try await RunAnywhere.loadVLMModel("smolvlm-256m")
    /// ```
    ///
    /// - Throws: `.invalidModelId`, `.modelAlreadyExists`, `.modelFileNotFound`,
    ///   `.invalidModelFormat`, `.modelCorrupted`, `.fileSystemError`. On failure nothing is
    ///   left behind and moved files are put back.
    @discardableResult
    public func importVLMModel(
        from file: URL,
        projector: URL,
        id: String,
        name: String? = nil,
        framework: InferenceFramework,
        mode: ModelImportMode = .copy
    ) throws(SDKException) -> ModelInfo {
        let model = try runtime().registry.importVisionModel(
            from: file,
            projector: projector,
            id: id,
            name: name,
            framework: framework,
            mode: mode
        )
        events.publish(.modelRegistered(modelId: id))
        return model
    }

    /// Registers a vision-language model to download: its language model and its vision
    /// projector, two files fetched into one model folder by ``downloadModel(_:)`` (with
    /// resume and checksums), and checked against each other before they are installed.
    ///
    /// ```swift
    /// let base = "https://huggingface.co/ggml-org/SmolVLM-256M-Instruct-GGUF/resolve/main/"
    /// try RunAnywhere.registerVLMModel(
    ///     model: RemoteFile(url: URL(string: base + "SmolVLM-256M-Instruct-Q8_0.gguf")!),
    ///     projector: RemoteFile(url: URL(string: base + "mmproj-SmolVLM-256M-Instruct-Q8_0.gguf")!),
    ///     id: "smolvlm-256m", name: "SmolVLM 256M Instruct", framework: .llamaCpp)
    /// ```
    ///
    /// - Throws: `.invalidModelId`, `.invalidInput` (bad URLs or the same file name twice),
    ///   `.modelAlreadyExists`.
    @discardableResult
    public func registerVLMModel(
        model file: RemoteFile,
        projector: RemoteFile,
        id: String,
        name: String? = nil,
        framework: InferenceFramework
    ) throws(SDKException) -> ModelInfo {
        try register(
            artifact: .files([file, projector], primaryFile: file.fileName),
            id: id,
            name: name ?? id,
            framework: framework,
            category: .vision,
            format: .guess(fromFileName: file.fileName),
            visionProjectorFile: projector.fileName
        )
    }

    /// Loads a vision-language model (a ``ModelCategory/vision`` model with its projector),
    /// unloading the one loaded before. It is held apart from the language model of
    /// ``loadModel(_:contextLength:threads:slots:chatTemplate:)``: an app can have one of each.
    ///
    /// - Parameters:
    ///   - id: A registered vision-language model's id.
    ///   - contextLength: Context size in tokens (prompt, image tokens and reply); by default
    ///     the model's own, capped at ``LLMLoadConfiguration/defaultContextCap``.
    ///   - threads: Threads for the image encoder and the decoder; by default all cores.
    /// - Throws: `.invalidInput` (not a vision model), `.modelNotFound`, `.modelFileNotFound`,
    ///   `.invalidModelFormat` (no projector, or one that does not fit the model),
    ///   `.noBackendForModel`, `.modelLoadFailed`, `.modelLoadInProgress`.
    public func loadVLMModel(_ id: String, contextLength: Int? = nil, threads: Int? = nil) async throws(SDKException) {
        let configuration = LLMLoadConfiguration(contextLength: contextLength, threads: threads)
        try configuration.validate()
        try await runtime().vlm.load(id, configuration: configuration)
    }

    /// Unloads the vision-language model, if one is loaded.
    public func unloadVLMModel() async throws(SDKException) {
        try await runtime().vlm.unload()
    }

    /// Whether a vision-language model is loaded.
    public var isVLMModelLoaded: Bool {
        get async { await currentVLMModel != nil }
    }

    /// The loaded vision-language model, if any.
    public var currentVLMModel: ModelInfo? {
        get async { try? await runtime().vlm.currentModel }
    }

    /// Answers `options.prompt` about `image` with the loaded vision-language model.
    ///
    /// The image is checked first (a file cut short, damaged, not PNG or JPEG, or over
    /// ``VLMImage/maximumPixelCount`` is `.invalidImage`), then decoded and scaled to what the
    /// model's projector takes, encoded into image tokens, and put before the prompt in the
    /// model's chat template.
    ///
    /// ```swift
    /// let result = try await RunAnywhere.processImage(.fromFilePath("receipt.jpg"),
    ///                                                 options: .defaults(prompt: "What is the total?"))
    /// print(result.text, result.imageTokens ?? 0)
    /// ```
    ///
    /// - Throws: `.modelNotLoaded`, `.invalidImage`, `.emptyPrompt`, `.invalidInput`,
    ///   `.contextLengthExceeded` (the image's tokens and the prompt do not fit),
    ///   `.generationFailed`. Cancellation is not an error: the result's `finishReason` is
    ///   `.cancelled`.
    public func processImage(_ image: VLMImage, options: VLMGenerationOptions) async throws(SDKException) -> VLMResult {
        try await visionChat([.user(options.prompt, images: [image])], options: options.generation)
    }

    /// Streams the answer about `image` as the original SDK does: events that do not throw.
    ///
    /// A `generationToken` event for each piece of text, then one that ends it:
    /// `generationCompleted`, `generationCancelled`, or `generationFailed` with the error. The
    /// events share a generation id of their own (not the one the bus's events carry). Stopping
    /// the iteration early cancels the generation. ``generateStream(_:images:options:)`` streams
    /// the same answer with the final result.
    ///
    /// ```swift
    /// for await event in try await sdk.processImageStream(image, options: .defaults(prompt: "Describe.")) {
    ///     if case .generationToken(_, let text, false) = event.kind { print(text, terminator: "") }
    /// }
    /// ```
    ///
    /// - Throws: before streaming, what ``generateStream(_:images:options:)`` throws.
    public func processImageStream(
        _ image: VLMImage,
        options: VLMGenerationOptions
    ) async throws(SDKException) -> AsyncStream<SDKEvent> {
        let (tokens, modelId) = try await visionStream(
            [.user(options.prompt, images: [image])],
            options: options.generation
        )
        let generationId = UUID()
        return tokens.endingWithFailure(
            { event in SDKEvent(event.kind(generationId: generationId)) },
            failure: { error in
                let failure = SDKException.wrap(error, as: .generationFailed, "Generation failed")
                return SDKEvent(.generationFailed(generationId: generationId, modelId: modelId, error: failure))
            }
        )
    }

    /// Streams the answer to `prompt` about `images` token by token; the last event is
    /// `.completed` with the result. Stopping the iteration early cancels the generation.
    ///
    /// - Throws: before streaming, as ``processImage(_:options:)`` (`.modelNotLoaded`,
    ///   `.invalidInput`); in the stream, the rest of what it throws.
    public func generateStream(
        _ prompt: String,
        images: [VLMImage],
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException) -> AsyncThrowingStream<LLMStreamEvent, any Error> {
        try await visionChatStream([.user(prompt, images: images)], options: options)
    }

    /// Describes `image` (or answers `prompt` about it) with the loaded vision-language model:
    /// ``processImage(_:options:)`` with ``VLMGenerationOptions/describePrompt`` by default.
    public func describeImage(
        _ image: VLMImage,
        prompt: String = VLMGenerationOptions.describePrompt,
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException) -> VLMResult {
        try await processImage(image, options: VLMGenerationOptions(prompt: prompt, generation: options))
    }

    /// Generates a reply to `prompt` about `images` (in order) with the loaded
    /// vision-language model.
    public func generate(
        _ prompt: String,
        images: [VLMImage],
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException) -> VLMResult {
        try await visionChat([.user(prompt, images: images)], options: options)
    }

    /// The loaded vision-language model's context size in tokens, or `nil` when none is loaded.
    public var currentVLMContextLength: Int? {
        get async { try? await runtime().vlm.loadedService().contextLength }
    }

    /// The next assistant turn of a conversation on the loaded vision-language model, whether
    /// or not its turns carry images (``ChatMessage/images``); ``chat(_:options:)`` sends only
    /// conversations with images there.
    ///
    /// - Throws: as ``processImage(_:options:)``.
    public func visionChat(
        _ messages: [ChatMessage],
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException) -> LLMGenerationResult {
        try await runtime().vlm.generate(.messages(messages), options: options)
    }

    /// Streams ``visionChat(_:options:)`` token by token; the last event is `.completed`.
    public func visionChatStream(
        _ messages: [ChatMessage],
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException) -> AsyncThrowingStream<LLMStreamEvent, any Error> {
        try await visionStream(messages, options: options).tokens
    }

    /// ``visionChatStream(_:options:)``'s stream, and the id of the model it was checked against.
    private func visionStream(
        _ messages: [ChatMessage],
        options: LLMGenerationOptions
    ) async throws(SDKException) -> (tokens: AsyncThrowingStream<LLMStreamEvent, any Error>, modelId: String) {
        let vlm = try runtime().vlm
        try options.validate()
        let model = try await vlm.loadedService().model
        return (vlm.stream(.messages(messages), options: options), model.id)
    }

    /// Stops the vision-language model's running generations after their current token.
    public func cancelVLMGeneration() async {
        guard let runtime = try? runtime() else { return }
        await runtime.vlm.cancelAll()
    }

}

extension RunAnywhere {
    /// Imports a vision-language model from its language model and vision projector files.
    ///
    /// Calls ``RunAnywhereSDK/importVLMModel(from:projector:id:name:framework:mode:)`` on the shared instance.
    @discardableResult
    public static func importVLMModel(
        from file: URL,
        projector: URL,
        id: String,
        name: String? = nil,
        framework: InferenceFramework,
        mode: ModelImportMode = .copy
    ) throws(SDKException) -> ModelInfo {
        try sdk().importVLMModel(from: file, projector: projector, id: id, name: name, framework: framework, mode: mode)
    }

    /// Registers a vision-language model to download.
    ///
    /// Calls ``RunAnywhereSDK/registerVLMModel(model:projector:id:name:framework:)`` on the shared instance.
    @discardableResult
    public static func registerVLMModel(
        model file: RemoteFile,
        projector: RemoteFile,
        id: String,
        name: String? = nil,
        framework: InferenceFramework
    ) throws(SDKException) -> ModelInfo {
        try sdk().registerVLMModel(model: file, projector: projector, id: id, name: name, framework: framework)
    }

    /// Loads a vision-language model.
    ///
    /// Calls ``RunAnywhereSDK/loadVLMModel(_:contextLength:threads:)`` on the shared instance.
    public static func loadVLMModel(
        _ id: String,
        contextLength: Int? = nil,
        threads: Int? = nil
    ) async throws(SDKException) {
        try await sdk().loadVLMModel(id, contextLength: contextLength, threads: threads)
    }

    /// Unloads the vision-language model.
    ///
    /// Calls ``RunAnywhereSDK/unloadVLMModel()`` on the shared instance.
    public static func unloadVLMModel() async throws(SDKException) {
        try await sdk().unloadVLMModel()
    }

    /// Whether the shared instance has a vision-language model loaded.
    public static var isVLMModelLoaded: Bool {
        get async { await shared?.isVLMModelLoaded ?? false }
    }

    /// Answers `options.prompt` about `image`.
    ///
    /// Calls ``RunAnywhereSDK/processImage(_:options:)`` on the shared instance.
    public static func processImage(
        _ image: VLMImage,
        options: VLMGenerationOptions
    ) async throws(SDKException) -> VLMResult {
        try await sdk().processImage(image, options: options)
    }

    /// Streams the answer about `image` as events, the original SDK's shape.
    ///
    /// Calls ``RunAnywhereSDK/processImageStream(_:options:)`` on the shared instance.
    public static func processImageStream(
        _ image: VLMImage,
        options: VLMGenerationOptions
    ) async throws(SDKException) -> AsyncStream<SDKEvent> {
        try await sdk().processImageStream(image, options: options)
    }

    /// Streams the answer to `prompt` about `images` token by token.
    ///
    /// Calls ``RunAnywhereSDK/generateStream(_:images:options:)`` on the shared instance.
    public static func generateStream(
        _ prompt: String,
        images: [VLMImage],
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException) -> AsyncThrowingStream<LLMStreamEvent, any Error> {
        try await sdk().generateStream(prompt, images: images, options: options)
    }

    /// Describes `image`.
    ///
    /// Calls ``RunAnywhereSDK/describeImage(_:prompt:options:)`` on the shared instance.
    public static func describeImage(
        _ image: VLMImage,
        prompt: String = VLMGenerationOptions.describePrompt,
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException) -> VLMResult {
        try await sdk().describeImage(image, prompt: prompt, options: options)
    }

    /// Generates a reply to `prompt` about `images`.
    ///
    /// Calls ``RunAnywhereSDK/generate(_:images:options:)`` on the shared instance.
    public static func generate(
        _ prompt: String,
        images: [VLMImage],
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException) -> VLMResult {
        try await sdk().generate(prompt, images: images, options: options)
    }

    /// The next assistant turn of a conversation on the vision-language model.
    ///
    /// Calls ``RunAnywhereSDK/visionChat(_:options:)`` on the shared instance.
    public static func visionChat(
        _ messages: [ChatMessage],
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException) -> LLMGenerationResult {
        try await sdk().visionChat(messages, options: options)
    }

    /// Streams the next assistant turn on the vision-language model.
    ///
    /// Calls ``RunAnywhereSDK/visionChatStream(_:options:)`` on the shared instance.
    public static func visionChatStream(
        _ messages: [ChatMessage],
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException) -> AsyncThrowingStream<LLMStreamEvent, any Error> {
        try await sdk().visionChatStream(messages, options: options)
    }

    /// Stops the shared instance's vision-language generations.
    public static func cancelVLMGeneration() async {
        await shared?.cancelVLMGeneration()
    }
}

extension LLMStreamEvent {
    /// This event as the original SDK's event streams carry it, in generation `generationId`.
    fileprivate func kind(generationId: UUID) -> SDKEvent.Kind {
        switch self {
        case .token(let text, let isThinking):
            return .generationToken(generationId: generationId, text: text, isThinking: isThinking)
        case .completed(let result) where result.finishReason == .cancelled:
            return .generationCancelled(
                generationId: generationId,
                modelId: result.modelId,
                tokens: result.generatedTokens
            )
        case .completed(let result):
            return .generationCompleted(
                generationId: generationId,
                modelId: result.modelId,
                tokens: result.generatedTokens,
                durationMs: result.totalMs,
                tokensPerSecond: result.tokensPerSecond
            )
        }
    }
}
