#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Synthesized speech.
public struct TTSOutput: Sendable, Equatable {
    /// The audio (mono).
    public var audio: PCMAudio
    /// The text that was spoken.
    public var text: String
    /// The voice that spoke.
    public var voice: String
    /// Wall-clock synthesis time, in milliseconds.
    public var processingTimeMs: Double
    /// When each word is heard, from the engine where it reports it (espeak-ng), estimated
    /// otherwise (see ``TTSWordTiming/estimated``). Pauses of SSML breaks are included.
    public var wordTimings: [TTSWordTiming]

    /// Creates an output; the TTS capability makes these.
    public init(
        audio: PCMAudio,
        text: String,
        voice: String,
        processingTimeMs: Double,
        wordTimings: [TTSWordTiming] = []
    ) {
        self.audio = audio
        self.text = text
        self.voice = voice
        self.processingTimeMs = processingTimeMs
        self.wordTimings = wordTimings
    }

    /// The samples.
    public var samples: [Float] { audio.samples }
    /// Samples per second.
    public var sampleRate: Int { audio.sampleRate }
    /// Length in seconds.
    public var duration: TimeInterval { audio.duration }
    /// Synthesis time divided by audio length.
    public var realTimeFactor: Double { duration > 0 ? processingTimeMs / 1000 / duration : 0 }

    /// The audio as WAV bytes.
    public func wavData(format: WAVSampleFormat = .int16) -> Data { WAVFile.encode(audio, format: format) }

    /// Writes the audio to a WAV file.
    public func writeWAV(to url: URL, format: WAVSampleFormat = .int16) throws(SDKException) {
        try WAVFile.write(audio, to: url, format: format)
    }
}
