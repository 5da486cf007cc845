import Foundation
@_spi(Backend) import RunAnywhere

/// Ids of the models ``registerDeterministicModels(in:)`` registers.
public enum DeterministicModels {
    /// The language model.
    public static let llm = "test-llm"
    /// The vision-language model: 16 tokens per image, replies that depend on the image.
    public static let vlm = "test-vlm"
    /// The speech recognizer.
    public static let stt = "test-stt"
    /// The voice.
    public static let tts = "test-tts"
    /// The voice-activity detector.
    public static let vad = "test-vad"
    /// The embedding model.
    public static let embedding = "test-embedding"
    /// The reranking model.
    public static let reranker = "test-reranker"
    /// The speaker encoder (diarization).
    public static let speakerEncoder = "test-speaker"

    static let all: [(id: String, name: String, category: ModelCategory)] = [
        (llm, "Deterministic LLM", .llm),
        (vlm, "Deterministic VLM", .vision),
        (stt, "Deterministic STT", .speechRecognition),
        (tts, "Deterministic voice", .speechSynthesis),
        (vad, "Deterministic VAD", .voiceActivityDetection),
        (embedding, "Deterministic embeddings", .embedding),
        (reranker, "Deterministic reranker", .embedding),
        (speakerEncoder, "Deterministic speaker encoder", .speakerEmbedding),
    ]
}

/// Registers the deterministic models `test-llm`, `test-vlm`, `test-stt`, `test-tts`, `test-vad`, `test-embedding`,
/// `test-reranker` and `test-speaker`
/// (framework `InferenceFramework.deterministic`) in `sdk`, ready to load.
///
/// Each model is a tiny descriptor file in the SDK's store, so loading, unloading,
/// storage info and events behave as they do for real models. Calling it again does
/// nothing for models already in place. `sdk` needs ``DeterministicBackend`` among its
/// modules to load them.
///
/// ```swift
/// let sdk = try RunAnywhereSDK(home: home, modules: [DeterministicBackend()])
/// try registerDeterministicModels(in: sdk)
/// try await sdk.loadModel("test-llm")
/// ```
///
/// - Throws: `.fileSystemError` when the store cannot be written, and what
///   `RunAnywhereSDK.registerModel(_:replace:)` throws.
public func registerDeterministicModels(in sdk: RunAnywhereSDK) throws(SDKException) {
    for entry in DeterministicModels.all {
        if let existing = try? sdk.model(entry.id), existing.isDownloaded { continue }
        let folder = sdk.paths.modelDirectory(framework: .deterministic, id: entry.id)
        let file = folder.appendingPathComponent("\(entry.id).json")
        let descriptor = Data(#"{"backend":"deterministic","id":"\#(entry.id)"}"#.utf8)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try descriptor.write(to: file, options: .atomic)
        } catch {
            throw SDKException(
                .fileSystemError,
                "Cannot write the descriptor of \(entry.id) in \(folder.path)",
                underlying: error
            )
        }
        let model = ModelInfo(
            id: entry.id,
            name: entry.name,
            category: entry.category,
            format: .unknown,
            framework: .deterministic,
            localPath: file,
            sizeBytes: Int64(descriptor.count),
            contextLength: [.llm, .vision].contains(entry.category)
                ? DeterministicLLMService.defaultContextLength : nil,
            downloadedAt: Date()
        )
        try sdk.registerModel(model, replace: true)
    }
}
