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
    let llm: ProviderList<LLMServiceFactory>
    let vlm: ProviderList<LLMServiceFactory>
    let stt: ProviderList<STTServiceFactory>
    let tts: ProviderList<TTSServiceFactory>
    let vad: ProviderList<VADServiceFactory>
    let embeddings: ProviderList<EmbeddingsServiceFactory>
    private let systemTTS = Mutex<(name: String, factory: SystemTTSFactory, module: String?)?>(nil)
    let wakeWord: ProviderList<WakeWordServiceFactory>
    let speakerEmbedding: ProviderList<SpeakerEmbeddingServiceFactory>
    let inspectors: ModelFileInspectors
    private let instanceServiceFactories = Mutex<[(name: String, factory: InstanceServiceFactory)]>([])

    private let accelerator = Mutex(AcceleratorPreference.auto)

    /// The plugin module whose ``BackendModule/register(with:)`` is running, to tag what it offers.
    @TaskLocal static var registeringModule: String?

    /// Creates an empty registry; the SDK makes one per instance.
    @_spi(Backend) public init() {
        llm = ProviderList(capability: "LLM")
        vlm = ProviderList(capability: "VLM")
        stt = ProviderList(capability: "STT")
        tts = ProviderList(capability: "TTS")
        vad = ProviderList(capability: "VAD")
        embeddings = ProviderList(capability: "embeddings")
        wakeWord = ProviderList(capability: "wake-word")
        speakerEmbedding = ProviderList(capability: "speaker-embedding")
        inspectors = ModelFileInspectors()
    }

    /// Where the instance wants models to run (``Hardware/setAcceleratorPreference(_:)``):
    /// backends read it when they load a model and map it with
    /// `AcceleratorPreference.usesGPU(engine:engineHasGPU:)`.
    @_spi(Backend) public var acceleratorPreference: AcceleratorPreference {
        get { accelerator.withLock { $0 } }
        set { accelerator.withLock { $0 = newValue } }
    }

    /// Offers a service that runs beside every instance (see ``InstanceService``); a second
    /// offer under the same name replaces the first.
    package func registerInstanceService(name: String, factory: @escaping InstanceServiceFactory) {
        instanceServiceFactories.withLock { list in
            list.removeAll { $0.name == name }
            list.append((name, factory))
        }
    }

    /// The instance services offered, in the order they were.
    var instanceServices: [(name: String, factory: InstanceServiceFactory)] {
        instanceServiceFactories.withLock { $0 }
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
        let module = Self.registeringModule
        systemTTS.withLock { $0 = (name, factory, module) }
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

    /// Names of the speech-recognition providers, best first.
    @_spi(Backend) public var sttProviderNames: [String] { stt.names }

    /// The provider that should run the speech-recognition model `model`.
    @_spi(Backend) public func sttProvider(
        for model: ModelInfo
    ) throws(SDKException) -> ServiceProvider<STTServiceFactory> {
        try stt.provider(for: model)
    }

    /// The provider that should run the vision-language model `model`.
    @_spi(Backend) public func vlmProvider(
        for model: ModelInfo
    ) throws(SDKException) -> ServiceProvider<LLMServiceFactory> {
        try vlm.provider(for: model)
    }

    /// Registers a plugin's module, tagging its providers so ``remove(module:)`` can take them back.
    func register(plugin module: any BackendModule) {
        Self.$registeringModule.withValue(module.name) { module.register(with: self) }
    }

    /// Takes back what a plugin's module offered (its model inspectors stay: they only read files).
    func remove(module: String) {
        llm.remove(module: module)
        vlm.remove(module: module)
        stt.remove(module: module)
        tts.remove(module: module)
        vad.remove(module: module)
        embeddings.remove(module: module)
        wakeWord.remove(module: module)
        speakerEmbedding.remove(module: module)
        systemTTS.withLock { current in
            if current?.module == module { current = nil }
        }
    }

    /// The best keyword spotter, if a module offers one.
    var wakeWordFactory: (name: String, factory: WakeWordServiceFactory)? {
        wakeWord.best.map { ($0.name, $0.factory) }
    }

    /// The system voice's factory, if a module offers one.
    var systemTTSFactory: (name: String, factory: SystemTTSFactory)? {
        systemTTS.withLock { $0.map { ($0.name, $0.factory) } }
    }
}
