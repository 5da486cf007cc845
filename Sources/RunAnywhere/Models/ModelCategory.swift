#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a model does.
public enum ModelCategory: String, Sendable, Codable, CaseIterable {
    /// Language models that generate text.
    case llm
    /// Models that turn text into vectors.
    case embedding
    /// Speech recognition (speech to text).
    case speechRecognition = "stt"
    /// Voices for speech synthesis (text to speech).
    case speechSynthesis = "tts"
    /// Voice activity detection.
    case voiceActivityDetection = "vad"
    /// Vision-language models.
    case vision = "vlm"
    /// Speaker encoders: a voice to a vector, for telling speakers apart (diarization).
    case speakerEmbedding = "speaker-embedding"
    /// LoRA adapters: low-rank weight changes applied on top of a language model
    /// (``LoRA``); ``ModelInfo/baseModelIds`` names the models each one was trained for.
    case loraAdapter = "lora"
}

extension ModelCategory {
    /// Whether loading a model of this category takes a context length: language and
    /// vision-language models.
    public var requiresContextLength: Bool { self == .llm || self == .vision }

    /// Whether models of this category can reason before answering (``LLMGenerationOptions/reasoning``).
    public var supportsThinking: Bool { self == .llm || self == .vision }
}

extension ModelCategory {
    /// The original SDK's name for ``llm``.
    public static let language = ModelCategory.llm
}
