// An app's calls written from the original SDK's public API (seed 000 §5) alone, with its labels
// and types and the `RA` prefix dropped: it only has to compile. Each member of the README's seed
// map is called once, the way an app calls it (the `n/a` rows, which cannot exist here, excepted).
// Where the seed marks a call `async` or `throws` and this SDK's is not, the `await` or `try` is
// left out, as a porter does when the compiler says it is not needed.
import Foundation
import RunAnywhere
import RunAnywhereControlPlane
import RunAnywhereJSONSchema
import RunAnywhereLlamaCPP
import RunAnywhereRAG
import RunAnywhereSolutions

/// The initialization and state calls of `RunAnywhere.swift`, `SDKEnvironment` and `SDKInitParams`.
func portedInitialization() async throws {
    try RunAnywhere.initialize(apiKey: "sk-example-key", baseURL: "https://api.example.com", environment: .production)
    try RunAnywhere.initialize(apiKey: "sk-example-key", baseURL: URL(string: "https://api.example.com")!)
    try await RunAnywhere.completeServicesInitialization()
    _ = RunAnywhere.isInitialized as Bool
    _ = RunAnywhere.areServicesReady as Bool
    _ = RunAnywhere.isActive as Bool
    _ = RunAnywhere.version as String
    _ = RunAnywhere.environment as SDKEnvironment?
    _ = RunAnywhere.deviceId as String
    _ = RunAnywhere.events as EventBus
    _ = RunAnywhere.isAuthenticated as Bool
    _ = RunAnywhere.getUserId() as String?
    _ = RunAnywhere.getOrganizationId() as String?
    _ = RunAnywhere.isDeviceRegistered() as Bool
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
    let params = try SDKInitParams(apiKey: "sk-example-key", baseURL: URL(string: "https://api.example.com")!)
    _ = params.apiKey as String
    _ = params.baseURL as URL
    _ = params.environment as SDKEnvironment
    _ = SDKEnvironment.development.useMockData as Bool
}

/// `EventBus` and `RunAnywhere+SDKEvents`.
func portedEvents(_ received: SDKEvent) async {
    let bus = EventBus.shared
    let all = bus.on { event in
        bus.publish(event)
    }
    let models = bus.on(.model) { event in
        _ = event.category
    }
    // Where Combine exists its `AnyCancellable` is Combine's; there a port keeps `EventSubscription`s.
    #if !canImport(Combine)
    var cancellables = Set<AnyCancellable>()
    bus.on(.llm) { event in
        _ = event.category
    }
    .store(in: &cancellables)
    cancellables.removeAll()
    #endif
    all.cancel()
    models.cancel()
    _ = RunAnywhere.publishSDKEvent(received)
    let subscription = RunAnywhere.subscribeSDKEvents { event in
        _ = event
    }
    RunAnywhere.unsubscribeSDKEvents(subscription)
    while let event = RunAnywhere.pollSDKEvent() {
        _ = event
    }
}

/// Text generation, structured output and tool calling.
func portedGeneration(schema: JSONSchema) async throws {
    await RunAnywhere.cancelGeneration()
    let extracted = try RunAnywhere.extractStructuredOutput(text: #"{"city": "Oslo"}"#, schema: schema)
    if extracted.success, extracted.validation.isValid {
        _ = extracted.parsedJson as Data
    } else {
        _ = extracted.errorMessage as String
    }
    let structured = try await RunAnywhere.generateStructured(
        prompt: "Where is it?",
        schema: schema,
        options: LLMGenerationOptions()
    )
    _ = structured.success as Bool
    let generated = try await RunAnywhere.generateWithStructuredOutput(
        prompt: "Where is it?",
        structuredOutput: StructuredOutputOptions.defaults(schema: schema, includeSchemaInPrompt: true, strict: true),
        options: LLMGenerationOptions()
    )
    _ = generated.text
    let options = StructuredOutputOptions.defaults(schema: schema)
    _ = (options.includeSchemaInPrompt, options.strictMode, options.jsonSchema)
    _ = try await RunAnywhere.generateWithStructuredOutput(
        prompt: "Where?",
        structuredOutput: .defaults(schema: schema)
    )
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
    let described = ToolDefinition(
        name: "get_weather",
        description: "Weather for a city.",
        parameters: [
            ToolParameter(name: "city", type: .string, description: "The city.", required: true, enumValues: nil)
        ]
    )
    let executed = await RunAnywhere.executeTool(ToolCall(id: "1", name: described.name, arguments: [:]))
    _ = executed
    let offsets: (Int32, Int32) = (0, 4)
    let score: Float = 1
    let entity = NamedEntity(
        text: "Oslo",
        entityType: "location",
        startOffset: offsets.0,
        endOffset: offsets.1,
        confidence: score
    )
    _ = entity.length as Int32

    let request = LLMGenerateRequest(prompt: "Hello", options: LLMGenerationOptions.defaults())
    _ = try await RunAnywhere.generate(request) as LLMGenerationResult
    for await event in try await RunAnywhere.generateStream(request) {
        _ = event
    }
    for await event in RunAnywhere.generateStructuredStream(
        prompt: "Where?",
        schema: schema,
        options: LLMGenerationOptions()
    ) {
        _ = event
    }
    _ = StructuredOutputValidation(isValid: true, containsJson: true, errorMessage: nil, rawOutput: "{}")
    let arguments: [String: ToolValue] = ["city": ToolValue("Oslo"), "days": ToolValue(3), "metric": ToolValue(true)]
    if let json = ToolValue(2.5).toJSONString(pretty: false) { _ = json }
    _ = ToolValue.array([ToolValue("a")])
    _ = ToolValue.parseObjectJSON(#"{"city": "Oslo"}"#) as [String: ToolValue]
    _ = ToolValue.object(arguments)
    let executor: ToolExecutor = { arguments in
        ["echo": arguments["text"] ?? ToolValue("")]
    }
    await RunAnywhere.registerTool(ToolDefinition(name: "echo", description: "Echoes"), executor: executor)
    _ = ToolValue.jsonString(from: arguments) as String
}

/// LoRA, embeddings, speech, voice activity, vision and the voice agent.
func portedCapabilities(
    audio: Data,
    chunks: AsyncStream<Data>,
    image: VLMImage,
    state: ComponentLifecycleState,
    sessionError: VoiceSessionError
) async throws {
    let lora = RunAnywhere.lora
    _ = await lora.list()
    _ = await lora.state()
    _ = try await lora.adaptersForModel("smollm2-135m-instruct")
    _ = try lora.allRegistered()
    let adapter = LoRAAdapterConfig(id: "my-adapter", scale: 0.8)
    let applied = try await lora.apply(LoRAApplyRequest(adapters: [adapter]))
    _ = applied.state as LoRAState
    _ = try await lora.remove(LoRARemoveRequest(adapterIds: ["my-adapter"])) as LoRAState
    _ = await lora.checkCompatibility(adapter) as LoraCompatibilityResult
    _ = try await lora.listCatalog(LoraAdapterCatalogListRequest()) as LoraAdapterCatalogListResult
    _ = try await lora.queryCatalog(LoraAdapterCatalogQuery(modelId: "smollm2-135m-instruct"))
    let completed = try await lora.markDownloadCompleted(
        LoraAdapterDownloadCompletedRequest(adapterId: "my-adapter", localPath: URL(fileURLWithPath: "/tmp/a.gguf"))
    )
    _ = completed.entry
    _ = try lora.register(
        LoraAdapterCatalogEntry(
            id: "my-adapter",
            framework: .llamaCpp,
            baseModelIds: ["smollm2-135m-instruct"],
            downloadURL: URL(string: "https://example.com/adapter.gguf")
        )
    )
    _ = try await lora.markImportCompleted(
        LoraAdapterDownloadCompletedRequest(adapterId: "my-adapter", localPath: URL(fileURLWithPath: "/tmp/a.gguf"))
    )
    _ =
        try await lora.getCatalogEntry(LoraAdapterCatalogGetRequest(adapterId: "my-adapter"))
        as LoraAdapterCatalogGetResult

    try STTOptions.defaults().validate()
    let transcript = try await RunAnywhere.transcribe(audio: audio, options: STTOptions.defaults())
    _ = transcript.detectedLanguageCode.bcp47Code as String
    for await partial in RunAnywhere.transcribeStream(audio: chunks, options: STTOptions()) {
        _ = partial
    }
    let speech = try await RunAnywhere.synthesize("Hello", options: TTSOptions())
    for await sentence in RunAnywhere.synthesizeStream("Hello. Goodbye.", options: TTSOptions()) {
        _ = sentence.duration
    }
    _ = speech.duration as TimeInterval
    let spoken = try await RunAnywhere.speak("Hello", options: TTSOptions())
    _ = spoken.duration as TimeInterval
    await RunAnywhere.stopSpeaking()
    await RunAnywhere.stopSynthesis()
    _ = TTSSpeakResult(output: speech).duration
    try await RunAnywhere.resetVAD()
    let verdict = try await RunAnywhere.detectVoiceActivity(audio, options: VADOptions())
    _ = VADConfiguration().frameLengthSeconds as Float
    _ = (verdict.isSpeechDetected, verdict.energyLevel)
    for await result in RunAnywhere.streamVAD(audio: chunks) {
        _ = result.isSpeech
        _ = result.duration as TimeInterval
        for activity in result.events {
            _ = (activity.timestamp as Date, activity.duration)
        }
    }

    let embedding: EmbeddingVector = [0.6, 0.8]
    _ = embedding.cosineSimilarity(with: [0.8, 0.6]) as Float
    _ = embedding.computeNorm() as Float
    let language = STTLanguage.fromBcp47("en-US")
    _ = language.bcp47Code as String
    let vision = VLMConfiguration.defaults(modelId: "smolvlm-256m")
    _ = await RunAnywhere.loadModel(ModelLoadRequest(modelId: vision.modelId))

    _ = try await RunAnywhere.processImage(image, options: VLMGenerationOptions.defaults(prompt: "Describe it."))
    for await event in try await RunAnywhere.processImageStream(image, options: VLMGenerationOptions()) {
        _ = event as SDKEvent
    }
    await RunAnywhere.cancelVLMGeneration()
    _ = VLMImage.fromFilePath("/tmp/photo.jpg")
    _ = VLMImage.fromEncoded(audio, format: nil)
    _ = VLMImage.fromBase64("aGVsbG8=")
    _ = VLMImage.fromRawRGB(audio, width: 1, height: 1)
    _ = VLMImage.fromRawRGBA(audio, width: 1, height: 1)

    let config: VoiceAgentConfig? = nil
    if let config { try await RunAnywhere.initializeVoiceAgent(config) }
    try await RunAnywhere.initializeVoiceAgentWithLoadedModels()
    _ = try await RunAnywhere.getVoiceAgentComponentStates() as VoiceAgentComponentStates
    _ = try await RunAnywhere.processVoiceTurn(audio) as VoiceAgentResult
    for await event in RunAnywhere.streamVoiceAgent() {
        _ = event
    }
    var session: VoiceSessionConfig? = config
    session?.silenceDuration = 0.8
    session?.autoPlayTTS = false
    _ = (state.isLoaded, state.isLoading)
    _ = sessionError.localizedDescription
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
    let current = RunAnywhere.currentModel(CurrentModelRequest(category: .llm))
    _ = current.lifecyclePrimaryArtifactPath as String?
    _ = RunAnywhere.componentLifecycleSnapshot(.stt) as ComponentLifecycleSnapshot?
    var request = ModelImportRequest()
    request.model = ModelInfo.make(id: "m", name: "M", category: .llm, format: .gguf, framework: .llamaCpp)
    request.sourcePath = "/tmp/m.gguf"
    request.overwriteExisting = true
    request.copyIntoManagedStorage = true
    request.validateBeforeRegister = true
    let imported = try await RunAnywhere.importModel(request)
    if !imported.success {
        _ = imported.errorMessage
    }
    _ = (imported.hasModel, imported.model.id, imported.localPath, imported.importedBytes, imported.warnings)

    _ = ModelFormat.gguf.wireString as String
    _ = ModelFormat.fromWireString("gguf") as ModelFormat?
    _ = ModelCategory.llm.requiresContextLength as Bool
    _ = ModelCategory.llm.supportsThinking as Bool
    _ = InferenceFramework.llamaCpp.wireString as String
    _ = InferenceFramework.llamaCpp.analyticsKey as String
    _ = InferenceFramework(caseInsensitive: "LlamaCpp") as InferenceFramework?
    _ = InferenceFramework.llamaCpp.displayName as String
    _ = ArchiveType.tarGz.fileExtension as String
    _ = ArchiveType.from(url: URL(string: "https://example.com/model.tar.gz")!) as ArchiveType?
    let url = URL(string: "https://example.com/model.gguf")!
    var info = try await RunAnywhere.registerModel(
        name: "My model",
        url: "https://example.com/model.gguf",
        framework: .llamaCpp,
        modality: .language
    )
    let expected = info.expectedArtifactFiles
    _ = (expected.files as [ModelFileDescriptor], expected.requiredPatterns, expected.rootDirectory)
    _ = info.isDownloadedOnDisk as Bool
    info.setArtifact(ModelInfo.inferredArtifact(from: url, format: .gguf))
    info.setLocalPath(nil)
    let made = ModelInfo.make(
        id: "made",
        name: "Made",
        category: .language,
        format: .gguf,
        framework: .llamaCpp,
        downloadURL: url,
        contextLength: 2048,
        supportsThinking: true,
        description: "A model",
        source: .remote,
        createdAt: Date(),
        updatedAt: Date()
    )
    _ = made.source == ModelSource.remote
    _ = made.source
    _ = loaded.resolvedVisionProjectorPath as String?
    _ = (loaded.resolvedConfigPath, loaded.resolvedVocabularyPath)
    let artifacts = [ModelFileDescriptor(url: url, filename: "mmproj.gguf", isRequired: true)]
    _ = (artifacts.resolvedPrimaryModelPath, artifacts.resolvedTokenizerPath, artifacts.resolvedVisionProjectorPath)
    _ = (artifacts.resolvedConfigPath, artifacts.resolvedVocabularyPath)
    _ = InferenceFramework.knownCases as [InferenceFramework]
    _ = try await RunAnywhere.registerModel(
        archive: "https://example.com/voice.tar.bz2",
        structure: ArchiveStructure.nestedDirectory,
        name: "Voice",
        framework: .llamaCpp,
        modality: .language,
        archive: ArchiveType.tarBz2,
        memoryRequirement: 1_000_000,
        supportsThinking: false,
        supportsLora: true
    )
    _ = try await RunAnywhere.registerModel(
        name: "Hub model",
        url: "https://example.com/model.gguf",
        framework: .llamaCpp,
        supportsThinking: true
    )
    let files = [ModelFileDescriptor(url: url, filename: "model.gguf", isRequired: true)]
    _ = try RunAnywhere.registerModel(
        multiFile: files,
        id: "my-files",
        name: "Files",
        framework: .llamaCpp,
        modality: .language
    )
    let deleted = await RunAnywhere.deleteStorage(StorageDeleteRequest(modelIds: ["my-model"]))
    _ = deleted.success
    var storageRequest = StorageInfoRequest()
    storageRequest.includeDevice = true
    storageRequest.includeApp = true
    storageRequest.includeModels = true
    storageRequest.includeCache = true
    let report = await RunAnywhere.getStorageInfo(storageRequest)
    if !report.errorMessage.isEmpty || !report.warnings.isEmpty {
        _ = report.success
    }
    _ = storageOf(report.info)
    _ = await RunAnywhere.getStorageInfo(StorageInfoRequest()).info.storedModels
    let progress = try await RunAnywhere.downloadModel(info) { progress in
        _ = progress.overallProgress
    }
    _ = progress.stage
    _ = DeviceStorageInfo(totalBytes: 100, freeBytes: 40, usedBytes: 60)
    _ = StorageInfo.empty
    let app: AppStorageInfo = storageOf(StorageInfo.empty)
    _ = app.documentsBytes
    _ = AppStorageInfo(documentsBytes: 1, cacheBytes: 2, appSupportBytes: 3, totalBytes: 6)
    _ = ModelStorageMetrics(modelID: "m", sizeOnDiskBytes: 1_024, lastUsedMs: nil)
    _ = StorageAvailability.make(isAvailable: true, requiredBytes: 1, availableBytes: 2)

    let storage = await RunAnywhere.getStorageInfo(StorageInfoRequest()).info
    _ = storage.totalModelsSize as Int64
    _ = storage.totalModelsSizeBytes as Int64
    _ = storage.deviceStorage.usagePercentage as Double
    _ = storage.modelCount as Int
    for stored in storage.storedModels {
        _ = (stored.id, stored.size, stored.path, stored.createdDate)
    }
    _ = try RunAnywhere.clearCache()
    _ = try RunAnywhere.cleanTempFiles()
}

/// Solutions, hardware, logging and the plugin loader.
func portedRest(solution: SolutionConfig, activity: SpeechActivityKind) async throws {
    let handle: SolutionHandle = try await RunAnywhere.solutions.run(configBytes: Data("pipeline: {}".utf8))
    handle.start()
    try handle.feed("What is on the calendar?")
    handle.closeInput()
    _ = handle.isAlive as Bool
    handle.stop()
    handle.cancel()
    handle.destroy()

    let profile: HardwareProfileResult = RunAnywhere.hardware.getProfile()
    _ = profile.profile.hasNeuralEngine as Bool
    _ = (profile.hasProfile, profile.accelerators.count)
    _ = RunAnywhere.hardware.getAccelerators()
    try RunAnywhere.hardware.setAcceleratorPreference(.cpu)
    _ = try await RunAnywhere.solutions.run(yaml: "pipeline: {}")
    _ = SDKEnvironment.from(wireString: "production")
    _ = SDKEnvironment.production.wireString as String
    _ = try await RunAnywhere.solutions.run(config: solution)
    _ = activity.isTransition
    _ = SDKException.notInitialized("not yet").telemetryProperties

    RunAnywhere.setLogLevel(.debug)
    let logger = SDKLogger(category: "App")
    logger.debug("debug")
    logger.debug("debug", metadata: ["attempt": 2, "cached": true])
    logger.info("info", metadata: ["model": "smollm2"])
    logger.info("info")
    logger.warning("warning")
    logger.warning("warning", metadata: ["attempt": 2])
    logger.error("error")
    logger.error("error", metadata: ["cached": true])
    SDKLogger.shared.fault("fault")
    SDKLogger.shared.fault("fault", metadata: ["code": -1])
    SDKLogger.llm.logError(SDKException.modelNotFound("gone"), additionalInfo: "while loading x")
    for seedLogger in [SDKLogger.stt, SDKLogger.tts, SDKLogger.download, SDKLogger.models] {
        seedLogger.info("ready", metadata: ["category": "\(seedLogger.category)"])
    }
    _ = LogLevel.fault.description as String
    _ = LogLevel(rawValue: 2) == .warning
    _ = LogLevel.error.rawValue as Int
    _ = LogLevel.debug < LogLevel.fault
    RunAnywhere.setSentryLoggingEnabled(false)
    RunAnywhere.configureLogging(.development)
    var logging = LoggingConfiguration(
        enableLocalLogging: true,
        minLogLevel: .warning,
        includeDeviceMetadata: false,
        enableSentryLogging: false
    )
    logging.includeDeviceMetadata = true
    RunAnywhere.configureLogging(logging)
    RunAnywhere.setLocalLoggingEnabled(true)
    RunAnywhere.addLogDestination(PortedLogDestination())
    RunAnywhere.setDebugMode(false)
    RunAnywhere.flushLogs()

    _ = RunAnywhere.pluginLoader.apiVersion
    _ = RunAnywhere.pluginLoader.registeredCount as Int
    _ = RunAnywhere.pluginLoader.registeredNames() as [String]
    _ = RunAnywhere.pluginLoader.listLoaded() as [PluginInfo]
    let plugin: PluginInfo = try RunAnywhere.pluginLoader.load(path: "/tmp/librunanywhere_plugin.so")
    _ = (plugin.name, plugin.path)
    try RunAnywhere.pluginLoader.unload(name: "runanywhere_plugin")
}

/// The RAG pipeline.
func portedRAG() async throws {
    let embedder = await RunAnywhere.getModel(ModelGetRequest(modelId: "all-minilm-l6-v2")).model
    let llm = await RunAnywhere.getModel(ModelGetRequest(modelId: "smollm2-135m-instruct")).model
    guard let embedder, let llm else { return }
    let config = try await RunAnywhere.ragResolvedConfiguration(
        embeddingModel: embedder,
        llmModel: llm,
        baseConfiguration: RAGConfiguration.defaults()
    )
    try await RunAnywhere.ragCreatePipeline(config: config)
    let embedderLoad = await RunAnywhere.loadModel(ModelLoadRequest(modelId: embedder.id))
    let llmLoad = await RunAnywhere.loadModel(ModelLoadRequest(modelId: llm.id))
    try await RunAnywhere.ragCreatePipeline(
        embeddingModel: embedder,
        llmModel: llm,
        baseConfiguration: config.resolvingLifecycleArtifacts(embedding: embedderLoad, llm: llmLoad)
    )
    try await RunAnywhere.ragIngest(text: "Oslo is the capital of Norway.", metadataJSON: #"{"lang": "en"}"#)
    let afterIngest = try await RunAnywhere.ragIngest(RAGDocument(text: "Bergen is on the coast.", metadataJSON: nil))
    _ = afterIngest as RAGStatistics
    try await RunAnywhere.ragAddDocumentsBatch(documents: [RAGDocument(text: "Trondheim.", metadataJSON: "{}")])
    _ = await RunAnywhere.ragGetDocumentCount() as Int
    let statistics: RAGStatistics = try await RunAnywhere.ragGetStatistics()
    _ = statistics.lastUpdated
    _ = await RunAnywhere.ragDocumentCount as Int
    let result: RAGResult = try await RunAnywhere.ragQuery(question: "What is the capital?", options: nil)
    _ = result.totalTime
    _ = try await RunAnywhere.ragQuery(RAGQueryOptions.defaults(question: "Where is Bergen?"))
    try await RunAnywhere.ragClearDocuments()
    await RunAnywhere.ragDestroyPipeline()
}

/// `SDKException` as the seed's apps handle it.
func portedErrors(_ error: any Error) -> String {
    let exception = SDKException.from(error, category: .model)
    if exception.isExpected { return "" }
    switch exception.code {
    case .cancelled, .streamCancelled: return "cancelled"
    case .invalidApiKey: return "key"
    case .timeout: return "timeout"
    case .serviceNotAvailable, .notSupported, .notImplemented: return "unavailable"
    case .contextTooLong: return "too long"
    case .notInitialized: return "start the SDK"
    case .networkUnavailable, .networkError: return "offline"
    case .insufficientStorage, .insufficientMemory: return "no room"
    case .microphonePermissionDenied: return "allow the microphone"
    case .validationFailed: return "check the input"
    default: break
    }
    _ =
        SDKException.make(code: .modelNotFound, message: "gone", category: .model, underlying: nil, shouldLog: false)
        .stackTrace as [String]
    let io = SDKException.make(code: .fileSystemError, message: "disk", category: .io, underlying: error)
    if let cause: any Error = io.underlying { _ = cause.localizedDescription }
    if io.category == .io || io.category == .configuration { io.log() }
    if exception.category == .auth { return "sign in again" }
    _ = SDKException.notImplemented("later")
    let failures = [
        SDKException.invalidConfiguration("no key"),
        SDKException.validationFailed("bad value"),
        SDKException.cancelled(),
        SDKException.timeout("too slow"),
        SDKException.networkError("offline"),
        SDKException(code: .unknown, message: "?", category: .model, underlying: nil),
    ]
    _ = failures.map(\.code.isExpected)
    _ = Set(failures).count
    _ = (exception == io, exception.message as String)
    return exception.errorDescription ?? exception.localizedDescription
}

/// How long an embedding took, as the original SDK reports it.
func embeddingSeconds(_ result: EmbeddingsResult) -> TimeInterval { result.processingTime }

/// The app-storage part of a report, as the original SDK's `StorageInfo.appStorage`.
func storageOf(_ info: StorageInfo) -> AppStorageInfo { info.appStorage }

/// A log destination written the original SDK's way.
final class PortedLogDestination: LogDestination {
    let identifier = "ported"
    let isAvailable = true

    func write(_ entry: LogEntry) {
        let mark: String
        switch entry.level {
        case .debug: mark = "D"
        case .info: mark = "I"
        case .warning: mark = "W"
        case .error: mark = "E"
        case .fault: mark = "F"
        }
        var line = "\(mark) [\(entry.level)] \(entry.category): \(entry.message)"
        if let metadata = entry.metadata {
            line += " \(metadata)"
        }
        if let device = entry.deviceInfo, entry.level >= .error {
            line += " on \(device.deviceModel) (\(device.platform) \(device.cleanOSVersion), \(device.deviceType))"
        }
        _ = line
    }

    func flush() {}
}
