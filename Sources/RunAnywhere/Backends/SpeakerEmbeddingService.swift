#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A speaker encoder loaded by a backend: turns stretches of speech into vectors that are
/// close for the same voice and far apart for different ones.
///
/// The backend runs the network only. The diarization capability above it finds the
/// speech, cuts it into windows, compares and clusters the vectors and dates the speakers,
/// so every encoder is used the same way.
@_spi(Backend) public protocol SpeakerEmbeddingService: Sendable {
    /// The model this service runs.
    var model: ModelInfo { get }
    /// The rate the clips must have.
    var sampleRate: Int { get }
    /// Length of every vector.
    var dimension: Int { get }
    /// The stretch of speech one vector describes best, in seconds (the network's window).
    var windowDuration: TimeInterval { get }

    /// One unit-length vector per clip (mono, at ``sampleRate``). Clips may be of any
    /// length; the encoder pads or averages over windows as it was trained to.
    func embed(_ clips: [[Float]]) async throws -> [[Float]]

    /// Frees the engine's resources. The service is unusable afterwards.
    func unload() async
}

/// Creates a loaded ``SpeakerEmbeddingService`` for a model.
@_spi(Backend) public typealias SpeakerEmbeddingServiceFactory =
    @Sendable (ModelInfo) async throws -> any SpeakerEmbeddingService
