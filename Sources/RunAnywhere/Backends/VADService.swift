#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A voice-activity model: tells, frame by frame, how likely each frame is speech.
///
/// The VAD capability owns everything above the per-frame probability: framing of
/// arbitrary chunks, thresholds, minimum speech and silence durations, timestamps and
/// events. The same state machine therefore runs over Silero and over the energy
/// detector, and they can be compared.
@_spi(Backend) public protocol VADService: AnyObject, Sendable {
    /// Samples per frame at ``sampleRate``.
    var frameSize: Int { get }
    /// The rate frames must have.
    var sampleRate: Int { get }

    /// One speech probability in [0, 1] per frame; `samples.count` is a multiple of ``frameSize``.
    func speechProbabilities(_ samples: [Float]) async throws -> [Float]

    /// Applies the thresholds that concern the engine (the capability applies the durations).
    func configure(_ configuration: VADConfiguration) async throws

    /// Forgets the audio seen so far (models keep state across frames).
    func reset() async

    /// Frees the engine's resources.
    func unload() async
}

/// Creates a loaded ``VADService`` for a model.
@_spi(Backend) public typealias VADServiceFactory = @Sendable (ModelInfo) async throws -> any VADService
