// An app's calls written from the original SDK's public API (seed 000 §5) alone, with its labels
// and types and the `RA` prefix dropped: it only has to compile. Each seed member ported so far is
// called once, the way an app calls it; the README's seed map lists the members not here yet.
// Where the seed marks a call `async` or `throws` and this SDK's is not, the `await` or `try` is
// left out, as a porter does when the compiler says it is not needed.
import Foundation
import RunAnywhere
import RunAnywhereJSONSchema
import RunAnywhereLlamaCPP
import RunAnywhereSolutions

/// The initialization and state calls of `RunAnywhere.swift`, `SDKEnvironment` and `SDKInitParams`.
func portedInitialization() async throws {
    try RunAnywhere.initialize(apiKey: "sk-example-key", baseURL: "https://api.example.com", environment: .production)
    try RunAnywhere.initialize(
        apiKey: "sk-example-key",
        baseURL: URL(string: "https://api.example.com")!,
        environment: .production
    )
    try await RunAnywhere.completeServicesInitialization()
    _ = RunAnywhere.isInitialized as Bool
    _ = RunAnywhere.areServicesReady as Bool
    _ = RunAnywhere.isActive as Bool
    _ = RunAnywhere.version as String
    _ = RunAnywhere.environment as SDKEnvironment?
    _ = RunAnywhere.deviceId as String
    _ = RunAnywhere.events as EventBus
    await RunAnywhere.reset()

    let environment = SDKEnvironment.staging
    _ = SDKEnvironment.deployableCases as [SDKEnvironment]
    _ = environment.description as String
    _ = environment.isProduction as Bool
    _ = environment.isTesting as Bool
    _ = environment.requiresBackendURL as Bool
    _ = environment.isCompatibleWithCurrentBuild as Bool
    _ = SDKEnvironment.isDebugBuild as Bool
    _ = environment.defaultLogLevel as LogLevel
    _ = environment.shouldSendTelemetry as Bool
    _ = environment.useMockData as Bool
    _ = environment.shouldSyncWithBackend as Bool
    _ = environment.requiresAuthentication as Bool
    _ = SDKInitParams(forDevelopmentWithAPIKey: "dev-key")
    _ = try SDKInitParams(apiKey: "sk-example-key", baseURL: "https://api.example.com", environment: .production)
    _ = try SDKInitParams(
        apiKey: "sk-example-key",
        baseURL: URL(string: "https://api.example.com")!,
        environment: .production
    )
}

/// `EventBus` and `RunAnywhere+SDKEvents`.
func portedEvents() async {
    let bus = EventBus.shared
    let all = bus.on { event in
        bus.publish(event)
    }
    let models = bus.on(.model) { event in
        _ = event.category
    }
    all.cancel()
    models.cancel()
    for await event in bus.events {
        _ = RunAnywhere.publishSDKEvent(event)
        break
    }
    for await event in bus.events(for: .llm) {
        _ = event
        break
    }
    let subscription = RunAnywhere.subscribeSDKEvents { event in
        _ = event
    }
    RunAnywhere.unsubscribeSDKEvents(subscription)
}

/// Text generation, structured output and tool calling.
func portedGeneration(schema: JSONSchema) async throws {
    await RunAnywhere.cancelGeneration()
    let extracted = try RunAnywhere.extractStructuredOutput(text: #"{"city": "Oslo"}"#, schema: schema)
    _ = extracted
    let structured = try await RunAnywhere.generateStructured(
        prompt: "Where is it?",
        schema: schema,
        options: LLMGenerationOptions()
    )
    _ = structured.success as Bool
    _ = schema.jsonSchemaString as String
    _ = RunAnywhere.unregisterTool("get_weather")
    _ = RunAnywhere.getRegisteredTools() as [ToolDefinition]
    RunAnywhere.clearTools()
    let tools = try await RunAnywhere.generateWithTools(
        prompt: "What is the weather in Oslo?",
        options: LLMGenerationOptions(),
        toolOptions: ToolCallingOptions.defaults()
    )
    _ = tools
    let entity = NamedEntity(text: "Oslo", entityType: "location", startOffset: 0, endOffset: 4, confidence: 1)
    _ = entity.length as Int
}

/// LoRA, embeddings, speech, voice activity, vision and the voice agent.
func portedCapabilities(audio: Data, chunks: AsyncStream<Data>, image: VLMImage) async throws {
    let lora = RunAnywhere.lora
    _ = await lora.list()
    _ = await lora.state()
    _ = try await lora.adaptersForModel("smollm2-135m-instruct")
    _ = try lora.allRegistered()

    let transcript = try await RunAnywhere.transcribe(audio: audio, options: STTOptions.defaults())
    _ = transcript.detectedLanguageCode as String?
    for await partial in RunAnywhere.transcribeStream(audio: chunks, options: STTOptions()) {
        _ = partial
    }
    let speech = try await RunAnywhere.synthesize("Hello", options: TTSOptions())
    _ = speech.duration as TimeInterval
    let spoken = try await RunAnywhere.speak("Hello", options: TTSOptions())
    _ = spoken.duration as TimeInterval
    await RunAnywhere.stopSpeaking()
    try await RunAnywhere.resetVAD()

    _ = try await RunAnywhere.processImage(image, options: VLMGenerationOptions.defaults(prompt: "Describe it."))
    await RunAnywhere.cancelVLMGeneration()
    _ = VLMImage.fromFilePath("/tmp/photo.jpg")
    _ = VLMImage.fromEncoded(audio, format: nil)
    _ = try VLMImage.fromBase64("aGVsbG8=")
    _ = VLMImage.fromRawRGB(audio, width: 1, height: 1)
    _ = try VLMImage.fromRawRGBA(audio, width: 1, height: 1)

    let config: VoiceAgentConfig? = nil
    if let config { try await RunAnywhere.initializeVoiceAgent(config) }
    try await RunAnywhere.initializeVoiceAgentWithLoadedModels()
    _ = try await RunAnywhere.getVoiceAgentComponentStates() as VoiceAgentComponentStates
    _ = try await RunAnywhere.processVoiceTurn(audio) as VoiceAgentResult
    await RunAnywhere.cleanupVoiceAgent()
}

/// Models: types, lifecycle, registry, storage and downloads.
func portedModels() async throws {
    let loaded = await RunAnywhere.loadModel(ModelLoadRequest(modelId: "smollm2-135m-instruct"))
    _ = loaded.resolvedPrimaryModelPath as String?
    _ = await RunAnywhere.unloadModel(ModelUnloadRequest(category: .llm)) as ModelUnloadResult
    _ = await RunAnywhere.listModels(ModelListRequest()) as ModelListResult
    _ = await RunAnywhere.queryModels(ModelQuery(category: .speechRecognition)) as ModelListResult
    _ = await RunAnywhere.getModel(ModelGetRequest(modelId: "whisper-tiny-en")) as ModelGetResult
    _ = await RunAnywhere.downloadedModels() as ModelListResult

    _ = ModelFormat.gguf.wireString as String
    _ = ModelFormat.fromWireString("gguf") as ModelFormat?
    _ = ModelCategory.llm.requiresContextLength as Bool
    _ = ModelCategory.llm.supportsThinking as Bool
    _ = InferenceFramework.llamaCpp.wireString as String
    _ = InferenceFramework.llamaCpp.analyticsKey as String
    _ = InferenceFramework(caseInsensitive: "LlamaCpp") as InferenceFramework?

    _ = try await RunAnywhere.downloadModel("smollm2-135m-instruct") { progress in
        _ = progress
    }
    let storage = try RunAnywhere.getStorageInfo()
    _ = storage.totalModelsSize as Int64
    _ = storage.deviceStorage.usagePercentage as Double
    _ = storage.modelCount as Int
    for stored in storage.storedModels {
        _ = (stored.id, stored.size, stored.path, stored.createdDate)
    }
    _ = try RunAnywhere.clearCache()
    _ = try RunAnywhere.cleanTempFiles()
}

/// Solutions, hardware, logging and the plugin loader.
func portedRest() async throws {
    let handle = try await RunAnywhere.solutions.run(configBytes: Data("pipeline: {}".utf8))
    handle.start()
    try handle.feed("What is on the calendar?")
    handle.closeInput()
    _ = handle.isAlive as Bool
    await handle.destroy()

    let profile = RunAnywhere.hardware.getProfile()
    _ = profile.hasNeuralEngine as Bool
    _ = RunAnywhere.hardware.getAccelerators()

    RunAnywhere.setLogLevel(.debug)
    let logger = SDKLogger(category: "App")
    logger.debug("debug")
    logger.info("info")
    logger.warning("warning")
    logger.error("error")
    SDKLogger.shared.fault("fault")
    SDKLogger.llm.logError(SDKException.modelNotFound("gone"), additionalInfo: ["model": "x"])
    _ = LogLevel.fault

    _ = RunAnywhere.pluginLoader.apiVersion
    _ = RunAnywhere.pluginLoader.registeredCount as Int
    _ = RunAnywhere.pluginLoader.registeredNames() as [String]
    _ = RunAnywhere.pluginLoader.listLoaded() as [PluginInfo]
    _ = try RunAnywhere.pluginLoader.load(path: "/tmp/librunanywhere_plugin.so") as PluginInfo
}

/// `SDKException` as the seed's apps handle it.
func portedErrors(_ error: any Error) -> String {
    let exception = SDKException.from(error, category: .model)
    if exception.isExpected { return "" }
    switch exception.code {
    case .cancelled, .streamCancelled: return "cancelled"
    case .invalidApiKey: return "key"
    case .timeout: return "timeout"
    default: break
    }
    _ = SDKException.make(code: .modelNotFound, message: "gone", category: .model, underlying: nil, shouldLog: false)
    _ = SDKException.notImplemented("later")
    return exception.errorDescription ?? exception.localizedDescription
}
