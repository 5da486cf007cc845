#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A speech-recognition model loaded by a backend.
///
/// The STT capability above it validates and converts audio (the service always gets
/// 16 kHz mono), times the work, streams partial results and publishes events.
@_spi(Backend) public protocol STTService: Sendable {
    /// The model this service runs.
    var model: ModelInfo { get }

    /// Transcribes 16 kHz mono audio.
    func transcribe(_ audio: PCMAudio, options: STTOptions) async throws -> STTServiceResult

    /// Frees the engine's resources. The service is unusable afterwards.
    func unload() async
}

/// What a backend found in the audio; timing is added by the capability.
@_spi(Backend) public struct STTServiceResult: Sendable {
    /// The whole transcript.
    public var text: String
    /// Timed pieces of the transcript, in seconds from the start of the audio.
    public var segments: [STTSegment]
    /// The language spoken, detected or given, when known.
    public var language: String?
    /// Mean token probability in [0, 1], when the engine reports one.
    public var confidence: Float?
    /// Where the transcription ran (set by routing; backends leave it).
    public var executedOn: ExecutionTarget = .local

    /// Creates a result.
    public init(text: String, segments: [STTSegment], language: String?, confidence: Float?) {
        self.text = text
        self.segments = segments
        self.language = language
        self.confidence = confidence
    }
}

/// Creates a loaded ``STTService`` for a model.
@_spi(Backend) public typealias STTServiceFactory = @Sendable (ModelInfo) async throws -> any STTService
