#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which capability's model to ask about: the original SDK's request for
/// ``RunAnywhere/currentModel(_:)``.
public struct CurrentModelRequest: Sendable, Equatable, Codable {
    /// The capability, by the category of model it loads.
    public var category: ModelCategory

    /// A request for the model of `category`.
    public init(category: ModelCategory) {
        self.category = category
    }
}

/// The model a capability has loaded, if any.
public struct CurrentModelResult: Sendable, Equatable {
    /// The capability asked about.
    public var category: ModelCategory
    /// The loaded model; `nil` when none is.
    public var model: ModelInfo?

    /// A result.
    public init(category: ModelCategory, model: ModelInfo?) {
        self.category = category
        self.model = model
    }

    /// The loaded model's id.
    public var modelId: String? { model?.id }
    /// Whether a model is loaded.
    public var isLoaded: Bool { model != nil }
    /// The path of the file the engine opened (the original SDK's name).
    public var lifecyclePrimaryArtifactPath: String? { model?.localPath?.path }
}

/// A part of the SDK that loads a model, as the original SDK names them.
public enum SDKComponent: String, Sendable, Codable, CaseIterable {
    /// Text generation.
    case llm
    /// Vision-language generation.
    case vlm
    /// Speech recognition.
    case stt
    /// Speech synthesis.
    case tts
    /// Voice-activity detection.
    case vad
    /// Embeddings.
    case embeddings
    /// Speaker diarization.
    case speakerDiarization = "speaker_diarization"

    /// The category of the models it loads.
    public var modelCategory: ModelCategory {
        switch self {
        case .llm: .llm
        case .vlm: .vision
        case .stt: .speechRecognition
        case .tts: .speechSynthesis
        case .vad: .voiceActivityDetection
        case .embeddings: .embedding
        case .speakerDiarization: .speakerEmbedding
        }
    }

    /// A name to show a user.
    public var displayName: String {
        switch self {
        case .llm: "Language Model"
        case .vlm: "Vision Language Model"
        case .stt: "Speech to Text"
        case .tts: "Text to Speech"
        case .vad: "Voice Activity Detection"
        case .embeddings: "Embedding"
        case .speakerDiarization: "Speaker Diarization"
        }
    }
}

/// A component's state at one moment: the original SDK's snapshot.
public struct ComponentLifecycleSnapshot: Sendable, Equatable {
    /// The component.
    public var component: SDKComponent
    /// Whether a model is loaded, and which.
    public var state: ComponentLifecycleState
    /// The loaded model's id; `nil` when none is.
    public var modelId: String? {
        if case .loaded(let id) = state { return id }
        return nil
    }

    /// A snapshot.
    public init(component: SDKComponent, state: ComponentLifecycleState) {
        self.component = component
        self.state = state
    }
}

extension RunAnywhereSDK {
    /// The model loaded for the request's capability, read without waiting: it reflects
    /// every load and unload that has completed (the original SDK's synchronous call; the
    /// `current…Model` properties give the same answer).
    public func currentModel(_ request: CurrentModelRequest) -> CurrentModelResult {
        let id = (try? runtime())?.currentModels.id(for: request.category)
        return CurrentModelResult(category: request.category, model: id.flatMap { try? model($0) })
    }

    /// `component`'s state now: loaded with a model or not.
    public func componentLifecycleSnapshot(_ component: SDKComponent) -> ComponentLifecycleSnapshot? {
        guard let runtime = try? runtime() else { return nil }
        let id = runtime.currentModels.id(for: component.modelCategory)
        return ComponentLifecycleSnapshot(component: component, state: id.map { .loaded(modelId: $0) } ?? .notLoaded)
    }
}

extension RunAnywhere {
    /// The model loaded for the request's capability on the shared instance; none without one.
    ///
    /// Calls ``RunAnywhereSDK/currentModel(_:)`` on the shared instance.
    public static func currentModel(_ request: CurrentModelRequest) -> CurrentModelResult {
        shared?.currentModel(request) ?? CurrentModelResult(category: request.category, model: nil)
    }

    /// A component's state now on the shared instance; `nil` without one.
    ///
    /// Calls ``RunAnywhereSDK/componentLifecycleSnapshot(_:)`` on the shared instance.
    public static func componentLifecycleSnapshot(_ component: SDKComponent) -> ComponentLifecycleSnapshot? {
        shared?.componentLifecycleSnapshot(component)
    }
}
