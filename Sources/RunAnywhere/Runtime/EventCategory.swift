#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Coarse grouping of events, for filtered subscriptions.
public enum EventCategory: String, Sendable, Codable, CaseIterable {
    /// Initialization and service set-up.
    case sdk
    /// Loading and unloading models.
    case model
    /// Text generation.
    case llm
    /// Speech recognition.
    case stt
    /// Speech synthesis.
    case tts
    /// Voice activity detection.
    case vad
    /// Text embeddings.
    case embeddings
    /// RAG indexes: ingesting and deleting documents.
    case rag
    /// Registering, removing and deleting models.
    case storage
    /// Model downloads.
    case download
}
