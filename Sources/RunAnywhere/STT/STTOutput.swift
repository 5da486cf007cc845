#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A stretch of recognized speech.
public struct STTSegment: Sendable, Codable, Equatable {
    /// The words.
    public var text: String
    /// Start, in seconds from the beginning of the audio.
    public var start: TimeInterval
    /// End, in seconds.
    public var end: TimeInterval
    /// Mean token probability in [0, 1], when the engine reports one.
    public var confidence: Float?
    /// Who said it, when the transcription was diarized (``SpeakerSegment/speaker``).
    public var speaker: Int?

    /// Creates a segment.
    public init(text: String, start: TimeInterval, end: TimeInterval, confidence: Float? = nil, speaker: Int? = nil) {
        self.text = text
        self.start = start
        self.end = end
        self.confidence = confidence
        self.speaker = speaker
    }
}

/// A finished transcription.
public struct STTOutput: Sendable, Codable, Equatable {
    /// The whole transcript.
    public var text: String
    /// Timed pieces of the transcript (empty when timestamps were off).
    public var segments: [STTSegment]
    /// The language spoken (detected or given).
    public var language: String?
    /// Mean token probability in [0, 1], when available.
    public var confidence: Float?
    /// The model that transcribed.
    public var modelId: String
    /// Length of the audio, in seconds.
    public var audioDuration: TimeInterval
    /// Wall-clock time of the transcription, in milliseconds.
    public var processingTimeMs: Double
    /// Where the transcription ran: this device or a remote server (``RoutingPolicy``).
    public var executedOn: ExecutionTarget = .local
    /// Processing time divided by audio length (below 1 is faster than real time).
    public var realTimeFactor: Double {
        audioDuration > 0 ? processingTimeMs / 1000 / audioDuration : 0
    }

    /// Creates an output; the STT capability makes these.
    public init(
        text: String,
        segments: [STTSegment],
        language: String?,
        confidence: Float?,
        modelId: String,
        audioDuration: TimeInterval,
        processingTimeMs: Double
    ) {
        self.text = text
        self.segments = segments
        self.language = language
        self.confidence = confidence
        self.modelId = modelId
        self.audioDuration = audioDuration
        self.processingTimeMs = processingTimeMs
    }
}

extension STTOutput {
    /// The detected language as the original SDK gives it: ``language`` read as a BCP-47
    /// tag, ``STTLanguage/unspecified`` when the engine reported none.
    public var detectedLanguageCode: STTLanguage { language.map(STTLanguage.fromBcp47) ?? .unspecified }
}
