import Foundation

/// A speech-recognition model loaded by a backend.
///
/// The STT capability above it validates and converts audio (the service always gets
/// 16 kHz mono), times the work, streams partial results and publishes events.
public protocol STTService: Sendable {
    /// The model this service runs.
    var model: ModelInfo { get }

    /// Transcribes 16 kHz mono audio.
    func transcribe(_ audio: AudioBuffer, options: STTOptions) async throws -> STTServiceResult

    /// Frees the engine's resources. The service is unusable afterwards.
    func unload() async
}

/// What a backend found in the audio; timing is added by the capability.
public struct STTServiceResult: Sendable {
    public var text: String
    public var segments: [STTSegment]
    public var language: String?
    public var confidence: Float?

    public init(text: String, segments: [STTSegment], language: String?, confidence: Float?) {
        self.text = text
        self.segments = segments
        self.language = language
        self.confidence = confidence
    }
}

/// Creates a loaded ``STTService`` for a model.
public typealias STTServiceFactory = @Sendable (ModelInfo) async throws -> any STTService
