import Synchronization

/// Creates a loaded ``LLMService`` for a model.
@_spi(Backend) public typealias LLMServiceFactory =
    @Sendable (ModelInfo, LLMLoadConfiguration) async throws -> any LLMService

/// Where backends offer their services and capabilities find them.
///
/// For each capability the provider with the highest priority whose `canHandle` accepts
/// the model wins; ties go to the provider registered first.
///
/// ```swift
/// registry.registerLLM(name: "my-engine", priority: 200, canHandle: { $0.format == .gguf }) { model, config in
///     try await MyEngine(model: model, config: config)
/// }
/// ```
public final class ServiceRegistry: Sendable {
    let llm = ProviderList<LLMServiceFactory>(capability: "LLM")
    let vlm = ProviderList<LLMServiceFactory>(capability: "VLM")
    let stt = ProviderList<STTServiceFactory>(capability: "STT")
    let tts = ProviderList<TTSServiceFactory>(capability: "TTS")
    let vad = ProviderList<VADServiceFactory>(capability: "VAD")
    let embeddings = ProviderList<EmbeddingsServiceFactory>(capability: "embeddings")
    private let systemTTS = Mutex<(name: String, factory: SystemTTSFactory)?>(nil)
    let wakeWord = ProviderList<WakeWordServiceFactory>(capability: "wake-word")
    let speakerEmbedding = ProviderList<SpeakerEmbeddingServiceFactory>(capability: "speaker-embedding")
    let inspectors = ModelFileInspectors()
    private let controlPlaneProvider = Mutex<
        (name: String, settings: ControlPlaneSettings, factory: ControlPlaneConnectionFactory)?
    >(nil)

    private let accelerator = Mutex(AcceleratorPreference.auto)

    /// Creates an empty registry; the SDK makes one per instance.
    @_spi(Backend) public init() {}

    /// Where the instance wants models to run (``Hardware/setAcceleratorPreference(_:)``):
    /// backends read it when they load a model and map it with
    /// ``AcceleratorPreference/usesGPU(engine:engineHasGPU:)``.
    @_spi(Backend) public var acceleratorPreference: AcceleratorPreference {
        get { accelerator.withLock { $0 } }
        set { accelerator.withLock { $0 = newValue } }
    }

    /// Offers the connection phase 2 uses to reach the control plane at the SDK's base URL;
    /// the last module to offer one wins.
    @_spi(Backend) public func registerControlPlane(
        name: String,
        settings: ControlPlaneSettings = ControlPlaneSettings(),
        factory: @escaping ControlPlaneConnectionFactory
    ) {
        controlPlaneProvider.withLock { $0 = (name, settings, factory) }
    }

    /// The control-plane connection offered, if any.
    var controlPlane: (name: String, settings: ControlPlaneSettings, factory: ControlPlaneConnectionFactory)? {
        controlPlaneProvider.withLock { $0 }
    }

    /// Offers LLM services.
    @_spi(Backend) public func registerLLM(
        name: String,
        priority: Int = 100,
        canHandle: @escaping @Sendable (ModelInfo) -> Bool,
        factory: @escaping LLMServiceFactory
    ) {
        llm.add(ServiceProvider(name: name, priority: priority, canHandle: canHandle, factory: factory))
    }

    /// Offers vision-language models: language models with a vision projector
    /// (``ModelInfo/visionProjectorFile``), whose services take images
    /// (``LLMService/imageMarker``).
    @_spi(Backend) public func registerVLM(
        name: String,
        priority: Int = 100,
        canHandle: @escaping @Sendable (ModelInfo) -> Bool,
        factory: @escaping LLMServiceFactory
    ) {
        vlm.add(ServiceProvider(name: name, priority: priority, canHandle: canHandle, factory: factory))
    }

    /// Offers speech recognition.
    @_spi(Backend) public func registerSTT(
        name: String,
        priority: Int = 100,
        canHandle: @escaping @Sendable (ModelInfo) -> Bool,
        factory: @escaping STTServiceFactory
    ) {
        stt.add(ServiceProvider(name: name, priority: priority, canHandle: canHandle, factory: factory))
    }

    /// Offers voice models for speech synthesis.
    @_spi(Backend) public func registerTTS(
        name: String,
        priority: Int = 100,
        canHandle: @escaping @Sendable (ModelInfo) -> Bool,
        factory: @escaping TTSServiceFactory
    ) {
        tts.add(ServiceProvider(name: name, priority: priority, canHandle: canHandle, factory: factory))
    }

    /// Offers voice-activity models.
    @_spi(Backend) public func registerVAD(
        name: String,
        priority: Int = 100,
        canHandle: @escaping @Sendable (ModelInfo) -> Bool,
        factory: @escaping VADServiceFactory
    ) {
        vad.add(ServiceProvider(name: name, priority: priority, canHandle: canHandle, factory: factory))
    }

    /// Offers text embeddings.
    @_spi(Backend) public func registerEmbeddings(
        name: String,
        priority: Int = 100,
        canHandle: @escaping @Sendable (ModelInfo) -> Bool,
        factory: @escaping EmbeddingsServiceFactory
    ) {
        embeddings.add(ServiceProvider(name: name, priority: priority, canHandle: canHandle, factory: factory))
    }

    /// Offers the system voice, used when no voice model is loaded. The last registration wins.
    @_spi(Backend) public func registerSystemTTS(name: String, factory: @escaping SystemTTSFactory) {
        systemTTS.withLock { $0 = (name, factory) }
    }

    /// Offers a keyword spotter for wake words; the one with the highest priority is used
    /// (ties go to the first registered). Without one, wake words are spotted in transcripts.
    @_spi(Backend) public func registerWakeWord(
        name: String,
        priority: Int = 100,
        factory: @escaping WakeWordServiceFactory
    ) {
        // A spotter takes no model: it can handle any.
        wakeWord.add(ServiceProvider(name: name, priority: priority, canHandle: { _ in true }, factory: factory))
    }

    /// Offers speaker encoders (for diarization).
    @_spi(Backend) public func registerSpeakerEmbedding(
        name: String,
        priority: Int = 100,
        canHandle: @escaping @Sendable (ModelInfo) -> Bool,
        factory: @escaping SpeakerEmbeddingServiceFactory
    ) {
        speakerEmbedding.add(ServiceProvider(name: name, priority: priority, canHandle: canHandle, factory: factory))
    }

    /// Offers what the backend knows about its model files (see ``ModelFileInspector``).
    @_spi(Backend) public func registerModelInspector(_ inspector: ModelFileInspector) {
        inspectors.add(inspector)
    }

    /// Names of the LLM providers, best first.
    @_spi(Backend) public var llmProviderNames: [String] { llm.names }

    /// The provider that should run `model`.
    @_spi(Backend) public func llmProvider(
        for model: ModelInfo
    ) throws(SDKException) -> ServiceProvider<LLMServiceFactory> {
        try llm.provider(for: model)
    }

    /// The provider that should run the vision-language model `model`.
    @_spi(Backend) public func vlmProvider(
        for model: ModelInfo
    ) throws(SDKException) -> ServiceProvider<LLMServiceFactory> {
        try vlm.provider(for: model)
    }

    /// The best keyword spotter, if a module offers one.
    var wakeWordFactory: (name: String, factory: WakeWordServiceFactory)? {
        wakeWord.best.map { ($0.name, $0.factory) }
    }

    /// The system voice's factory, if a module offers one.
    var systemTTSFactory: (name: String, factory: SystemTTSFactory)? { systemTTS.withLock { $0 } }
}
