#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Something that happened inside the SDK, delivered through ``EventBus``.
public struct SDKEvent: Sendable, Identifiable, CustomStringConvertible {
    /// Unique id of this event.
    public let id: UUID
    /// When it was published.
    public let timestamp: Date
    /// What happened.
    public let kind: Kind

    /// Creates an event stamped now.
    public init(_ kind: Kind, timestamp: Date = Date()) {
        self.id = UUID()
        self.timestamp = timestamp
        self.kind = kind
    }

    /// The category of ``kind``.
    public var category: EventCategory { kind.category }

    /// The category and the kind's name, e.g. `llm.generation_completed`.
    public var description: String { "\(category).\(kind.name)" }

    /// The events the SDK publishes.
    public enum Kind: Sendable {
        // sdk
        /// An instance began initializing for `environment`.
        case initStarted(environment: SDKEnvironment)
        /// Phase 1 of initialization finished, after `durationMs` milliseconds.
        case initCompleted(durationMs: Double)
        /// Initialization failed; no instance was created.
        case initFailed(SDKException)
        /// Phase 2 finished after `durationMs` milliseconds; `offline` tells whether the SDK
        /// runs without a remote backend.
        case servicesReady(durationMs: Double, offline: Bool)
        /// A failure an app or module reports in the original SDK's generic shape
        /// (``RunAnywhere/publishSDKFailure(errorCode:message:component:operation:recoverable:)``):
        /// the error, the component and operation it came from, and whether it can be retried.
        case failure(SDKException, component: String, operation: String, recoverable: Bool)
        // storage
        /// A model was registered or imported.
        case modelRegistered(modelId: String)
        /// A model was unregistered and its files in the store deleted.
        case modelRemoved(modelId: String)
        /// A model's files were deleted; it stays registered and can be downloaded again.
        case modelFilesDeleted(modelId: String)
        // download
        /// A model download began.
        case downloadStarted(modelId: String)
        /// A download installed the model: `bytes` is the model's size, `durationMs` the
        /// time from start to install.
        case downloadCompleted(modelId: String, bytes: Int64, durationMs: Double)
        /// A download failed or was cancelled (`error.code` is then `.downloadCancelled`).
        case downloadFailed(modelId: String, error: SDKException)
        // model
        /// A capability began loading a model.
        case modelLoadStarted(modelId: String, category: ModelCategory)
        /// A model finished loading, after `durationMs` milliseconds.
        case modelLoadCompleted(modelId: String, category: ModelCategory, durationMs: Double)
        /// A model failed to load.
        case modelLoadFailed(modelId: String, category: ModelCategory, error: SDKException)
        /// A model was unloaded.
        case modelUnloaded(modelId: String, category: ModelCategory)
        // llm
        /// A generation began; `generationId` ties together the events of one generation.
        case generationStarted(generationId: UUID, modelId: String)
        /// A generation ended, not cancelled: `tokens` generated in `durationMs` milliseconds,
        /// at `tokensPerSecond` after the first token.
        case generationCompleted(
            generationId: UUID,
            modelId: String,
            tokens: Int,
            durationMs: Double,
            tokensPerSecond: Double
        )
        /// A generation failed.
        case generationFailed(generationId: UUID, modelId: String, error: SDKException)
        /// A generation was cancelled after `tokens` tokens.
        case generationCancelled(generationId: UUID, modelId: String, tokens: Int)
        /// A piece of a generation's text (`isThinking`: of its reasoning), as the original SDK's
        /// event streams carry it (``RunAnywhere/processImageStream(_:options:)``). The SDK never
        /// publishes it on a bus (a token stream is the place for tokens), and telemetry drops it.
        case generationToken(generationId: UUID, text: String, isThinking: Bool)
        // stt
        /// A transcription of `audioSeconds` of audio took `durationMs` milliseconds. A
        /// streaming transcription publishes one for every partial result.
        case transcriptionCompleted(modelId: String, audioSeconds: Double, durationMs: Double)
        /// A transcription failed.
        case transcriptionFailed(modelId: String, error: SDKException)
        // tts
        /// `characters` of text became `audioSeconds` of audio in `durationMs` milliseconds.
        case synthesisCompleted(voice: String, characters: Int, audioSeconds: Double, durationMs: Double)
        /// A synthesis failed.
        case synthesisFailed(voice: String, error: SDKException)
        // vad
        /// Speech began, `time` seconds into the stream (since the last VAD reset).
        case speechStarted(time: Double)
        /// Speech ended, `time` seconds into the stream (where the silence began).
        case speechEnded(time: Double)
        // embeddings
        /// `texts` texts (`tokens` content tokens) became vectors in `durationMs` milliseconds.
        case embeddingCompleted(modelId: String, texts: Int, tokens: Int, durationMs: Double)
        // rag
        /// A document went into a RAG index as `chunks` chunks.
        case documentIngested(index: String, documentId: String, chunks: Int, durationMs: Double)
        /// A document left a RAG index.
        case documentDeleted(index: String, documentId: String)

        /// The category this kind belongs to.
        public var category: EventCategory {
            switch self {
            case .initStarted, .initCompleted, .initFailed, .servicesReady, .failure: .sdk
            case .modelRegistered, .modelRemoved, .modelFilesDeleted: .storage
            case .downloadStarted, .downloadCompleted, .downloadFailed: .download
            case .modelLoadStarted, .modelLoadCompleted, .modelLoadFailed, .modelUnloaded: .model
            case .generationStarted, .generationCompleted, .generationFailed, .generationCancelled, .generationToken:
                .llm
            case .transcriptionCompleted, .transcriptionFailed: .stt
            case .synthesisCompleted, .synthesisFailed: .tts
            case .speechStarted, .speechEnded: .vad
            case .embeddingCompleted: .embeddings
            case .documentIngested, .documentDeleted: .rag
            }
        }

        /// A short, stable name such as `generation_completed`.
        public var name: String {
            switch self {
            case .initStarted: "init_started"
            case .initCompleted: "init_completed"
            case .initFailed: "init_failed"
            case .servicesReady: "services_ready"
            case .failure: "failure"
            case .modelRegistered: "model_registered"
            case .modelRemoved: "model_removed"
            case .modelFilesDeleted: "model_files_deleted"
            case .downloadStarted: "download_started"
            case .downloadCompleted: "download_completed"
            case .downloadFailed: "download_failed"
            case .modelLoadStarted: "model_load_started"
            case .modelLoadCompleted: "model_load_completed"
            case .modelLoadFailed: "model_load_failed"
            case .modelUnloaded: "model_unloaded"
            case .generationStarted: "generation_started"
            case .generationCompleted: "generation_completed"
            case .generationFailed: "generation_failed"
            case .generationCancelled: "generation_cancelled"
            case .generationToken: "generation_token"
            case .transcriptionCompleted: "transcription_completed"
            case .transcriptionFailed: "transcription_failed"
            case .synthesisCompleted: "synthesis_completed"
            case .synthesisFailed: "synthesis_failed"
            case .speechStarted: "speech_started"
            case .speechEnded: "speech_ended"
            case .embeddingCompleted: "embedding_completed"
            case .documentIngested: "document_ingested"
            case .documentDeleted: "document_deleted"
            }
        }
    }
}
