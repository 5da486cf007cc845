import Foundation

/// How to transcribe.
///
/// ```swift
/// let output = try await RunAnywhere.transcribe(audio, options: STTOptions(language: "en"))
/// ```
public struct STTOptions: Sendable, Codable, Equatable {
    /// Spoken language as an ISO 639-1 code (`en`, `de`, …); `nil` lets a multilingual
    /// model detect it. English-only models always use `en`.
    public var language: String?
    /// Translate the speech into English instead of transcribing it (multilingual models).
    public var translate: Bool
    /// Return segments with start and end times.
    public var enableTimestamps: Bool
    /// Threads for the engine; by default all cores.
    public var threads: Int?
    /// Text that primes the decoder: names, vocabulary, style.
    public var initialPrompt: String?
    /// For ``RunAnywhere/transcribeStream(_:options:)``: how much new audio (seconds)
    /// triggers a partial result.
    public var partialInterval: TimeInterval
    /// For streams of raw PCM `Data`: the rate of the 16-bit mono samples.
    public var sampleRate: Int

    /// Creates options; every parameter has a sensible default.
    public init(language: String? = nil, translate: Bool = false, enableTimestamps: Bool = true,
                threads: Int? = nil, initialPrompt: String? = nil, partialInterval: TimeInterval = 1.0,
                sampleRate: Int = 16_000) {
        self.language = language
        self.translate = translate
        self.enableTimestamps = enableTimestamps
        self.threads = threads
        self.initialPrompt = initialPrompt
        self.partialInterval = partialInterval
        self.sampleRate = sampleRate
    }

    /// Checks the values; the SDK calls this before any work.
    public func validate() throws(SDKException) {
        if let language, !(language == "auto" || (2...3).contains(language.count) && language.allSatisfy(\.isLetter)) {
            throw SDKException(.invalidInput, "Unknown language code '\(language)'", recovery: "Use an ISO 639-1 code such as \"en\", or nil to detect")
        }
        if let threads, threads < 1 { throw SDKException(.invalidInput, "threads must be at least 1 (got \(threads))") }
        guard partialInterval > 0 else { throw SDKException(.invalidInput, "partialInterval must be positive") }
        guard (1000...384_000).contains(sampleRate) else { throw SDKException(.invalidInput, "Unsupported sample rate \(sampleRate) Hz") }
    }
}

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

    public init(text: String, start: TimeInterval, end: TimeInterval, confidence: Float? = nil) {
        self.text = text
        self.start = start
        self.end = end
        self.confidence = confidence
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
    /// Processing time divided by audio length (below 1 is faster than real time).
    public var realTimeFactor: Double {
        audioDuration > 0 ? processingTimeMs / 1000 / audioDuration : 0
    }

    public init(text: String, segments: [STTSegment], language: String?, confidence: Float?,
                modelId: String, audioDuration: TimeInterval, processingTimeMs: Double) {
        self.text = text
        self.segments = segments
        self.language = language
        self.confidence = confidence
        self.modelId = modelId
        self.audioDuration = audioDuration
        self.processingTimeMs = processingTimeMs
    }
}

/// What ``RunAnywhere/transcribeStream(_:options:)`` yields while audio arrives.
public struct STTPartialResult: Sendable, Equatable {
    /// The transcript of all audio so far.
    public var text: String
    /// Whether this is the final result (the input stream ended).
    public var isFinal: Bool
    /// Seconds of audio received so far.
    public var audioDuration: TimeInterval
    /// The full output; set on the final result.
    public var output: STTOutput?

    public init(text: String, isFinal: Bool, audioDuration: TimeInterval, output: STTOutput? = nil) {
        self.text = text
        self.isFinal = isFinal
        self.audioDuration = audioDuration
        self.output = output
    }
}
