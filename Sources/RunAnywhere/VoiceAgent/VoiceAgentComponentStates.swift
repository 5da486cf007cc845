#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which models the voice agent holds.
public struct VoiceAgentComponentStates: Sendable, Codable, Equatable {
    /// A component's state.
    public enum State: Sendable, Codable, Equatable {
        /// No model is loaded and no fallback stands in.
        case notLoaded
        /// The model with this id is loaded.
        case loaded(modelId: String)
        /// The built-in fallback (system voice, energy VAD) is in use.
        case builtIn(String)

        /// Whether the component can work.
        public var isReady: Bool { self != .notLoaded }
    }

    /// Speech recognition.
    public var stt: State
    /// The language model.
    public var llm: State
    /// Speech synthesis.
    public var tts: State
    /// Voice activity detection.
    public var vad: State

    /// Whether every component can work.
    public var isReady: Bool { stt.isReady && llm.isReady && tts.isReady && vad.isReady }
}

/// The original SDK's name for a voice component's state: ``VoiceAgentComponentStates/State``.
public typealias ComponentLifecycleState = VoiceAgentComponentStates.State

extension VoiceAgentComponentStates.State {
    /// Whether the component can work: a model or the built-in fallback is loaded.
    public var isLoaded: Bool { isReady }
    /// Always `false`: loading is one awaited call here, never a state a snapshot sees.
    public var isLoading: Bool { false }
}
