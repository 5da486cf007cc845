import Foundation

/// Coarse grouping of events, for filtered subscriptions.
public enum EventCategory: String, Sendable, Codable, CaseIterable {
    case sdk, model, llm, stt, tts, vad, storage, download
}

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

    public var description: String { "\(category).\(kind.name)" }

    /// The events the SDK publishes.
    public enum Kind: Sendable {
        // sdk
        case initStarted(environment: SDKEnvironment)
        case initCompleted(durationMs: Double)
        case initFailed(SDKException)
        case servicesReady(durationMs: Double, offline: Bool)
        // model
        case modelRegistered(modelId: String)
        case modelRemoved(modelId: String)
        case modelFilesDeleted(modelId: String)
        // download
        case downloadStarted(modelId: String)
        case downloadCompleted(modelId: String, bytes: Int64, durationMs: Double)
        case downloadFailed(modelId: String, error: SDKException)
        case modelLoadStarted(modelId: String, category: ModelCategory)
        case modelLoadCompleted(modelId: String, category: ModelCategory, durationMs: Double)
        case modelLoadFailed(modelId: String, category: ModelCategory, error: SDKException)
        case modelUnloaded(modelId: String, category: ModelCategory)
        // llm
        case generationStarted(generationId: UUID, modelId: String)
        case generationCompleted(generationId: UUID, modelId: String, tokens: Int, durationMs: Double, tokensPerSecond: Double)
        case generationFailed(generationId: UUID, modelId: String, error: SDKException)
        case generationCancelled(generationId: UUID, modelId: String, tokens: Int)
        // stt
        case transcriptionCompleted(modelId: String, audioSeconds: Double, durationMs: Double)
        case transcriptionFailed(modelId: String, error: SDKException)
        // tts
        case synthesisCompleted(voice: String, characters: Int, audioSeconds: Double, durationMs: Double)
        case synthesisFailed(voice: String, error: SDKException)
        // vad
        case speechStarted(time: Double)
        case speechEnded(time: Double)

        /// The category this kind belongs to.
        public var category: EventCategory {
            switch self {
            case .initStarted, .initCompleted, .initFailed, .servicesReady: .sdk
            case .modelRegistered, .modelRemoved, .modelFilesDeleted: .storage
            case .downloadStarted, .downloadCompleted, .downloadFailed: .download
            case .modelLoadStarted, .modelLoadCompleted, .modelLoadFailed, .modelUnloaded: .model
            case .generationStarted, .generationCompleted, .generationFailed, .generationCancelled: .llm
            case .transcriptionCompleted, .transcriptionFailed: .stt
            case .synthesisCompleted, .synthesisFailed: .tts
            case .speechStarted, .speechEnded: .vad
            }
        }

        /// A short, stable name such as `generation_completed`.
        public var name: String {
            switch self {
            case .initStarted: "init_started"
            case .initCompleted: "init_completed"
            case .initFailed: "init_failed"
            case .servicesReady: "services_ready"
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
            case .transcriptionCompleted: "transcription_completed"
            case .transcriptionFailed: "transcription_failed"
            case .synthesisCompleted: "synthesis_completed"
            case .synthesisFailed: "synthesis_failed"
            case .speechStarted: "speech_started"
            case .speechEnded: "speech_ended"
            }
        }
    }
}
