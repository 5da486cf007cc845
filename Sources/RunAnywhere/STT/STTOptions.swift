#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// For streaming transcription: how much new audio (seconds) triggers a partial result.
    public var partialInterval: TimeInterval
    /// For raw PCM `Data` input (whole or streamed): the rate of the 16-bit mono samples.
    public var sampleRate: Int
    /// Label the segments with speakers: each speaker's turn is transcribed on its own and
    /// its segments carry ``STTSegment/speaker``. Needs a speaker encoder
    /// (``RunAnywhereSDK/loadDiarizationModel(_:)``); `nil` does not diarize. Whole
    /// recordings only: streaming ignores it.
    ///
    /// Only what the VAD hears as speech is transcribed (the loaded VAD model, or the energy
    /// detector), and finding it resets a live VAD stream, as ``RunAnywhereSDK/diarize(_:options:)`` does.
    public var diarization: DiarizationOptions?

    /// Creates options; every parameter has a sensible default.
    ///
    /// `diarize` labels the segments with speakers (``diarization``); giving `speakerCount`
    /// diarizes too, with that many speakers.
    public init(
        language: String? = nil,
        translate: Bool = false,
        enableTimestamps: Bool = true,
        threads: Int? = nil,
        initialPrompt: String? = nil,
        partialInterval: TimeInterval = 1.0,
        sampleRate: Int = 16_000,
        diarize: Bool = false,
        speakerCount: Int? = nil
    ) {
        self.language = language
        self.translate = translate
        self.enableTimestamps = enableTimestamps
        self.threads = threads
        self.initialPrompt = initialPrompt
        self.partialInterval = partialInterval
        self.sampleRate = sampleRate
        self.diarization = diarize || speakerCount != nil ? DiarizationOptions(speakerCount: speakerCount) : nil
    }

    /// Checks the values; the SDK calls this before any work.
    public func validate() throws(SDKException) {
        if let language, !(language == "auto" || (2...3).contains(language.count) && language.allSatisfy(\.isLetter)) {
            throw SDKException(
                .invalidInput,
                "Unknown language code '\(language)'",
                recovery: "Use an ISO 639-1 code such as \"en\", or nil to detect"
            )
        }
        if let threads, threads < 1 { throw SDKException(.invalidInput, "threads must be at least 1 (got \(threads))") }
        guard partialInterval > 0 else { throw SDKException(.invalidInput, "partialInterval must be positive") }
        guard (1000...384_000).contains(sampleRate) else {
            throw SDKException(.invalidInput, "Unsupported sample rate \(sampleRate) Hz")
        }
        try diarization?.validate()
    }
}

extension STTOptions {
    /// The default options (the original SDK's factory).
    public static func defaults() -> STTOptions { STTOptions() }
}
