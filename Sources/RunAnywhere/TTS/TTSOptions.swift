import Foundation

/// How to speak.
///
/// ```swift
/// let output = try await RunAnywhere.synthesize("Hello!", options: TTSOptions(rate: 1.2, volume: 0.8))
/// ```
public struct TTSOptions: Sendable, Codable, Equatable {
    /// A voice id from ``RunAnywhere/availableTTSVoices()``. `nil` speaks with the loaded
    /// voice model, or with the system voice when none is loaded.
    public var voice: String?
    /// Speaking rate: 1 is the voice's normal speed, 2 twice as fast (0.25–4).
    public var rate: Float
    /// Pitch: 1 is the voice's own, 1.5 a fifth higher (0.5–2).
    public var pitch: Float
    /// Loudness: 1 leaves the voice as it is, 0 is silent (0–2; clipped at full scale).
    public var volume: Float

    /// Creates options; every parameter has a sensible default.
    public init(voice: String? = nil, rate: Float = 1, pitch: Float = 1, volume: Float = 1) {
        self.voice = voice
        self.rate = rate
        self.pitch = pitch
        self.volume = volume
    }

    /// Checks the values; the SDK calls this before any work.
    public func validate() throws(SDKException) {
        guard rate.isFinite, (0.25...4).contains(rate) else {
            throw SDKException(.invalidInput, "rate must be between 0.25 and 4 (got \(rate))")
        }
        guard pitch.isFinite, (0.5...2).contains(pitch) else {
            throw SDKException(.invalidInput, "pitch must be between 0.5 and 2 (got \(pitch))")
        }
        guard volume.isFinite, (0...2).contains(volume) else {
            throw SDKException(.invalidInput, "volume must be between 0 and 2 (got \(volume))")
        }
    }
}

/// A voice the SDK can speak with.
public struct TTSVoice: Sendable, Codable, Equatable, Identifiable {
    /// What ``TTSOptions/voice`` takes: a voice model's id, or `espeak-ng:<name>` for a
    /// system voice.
    public var id: String
    /// Display name.
    public var name: String
    /// Language as a BCP-47 tag, e.g. `en-US`.
    public var language: String
    /// Native output rate in Hz.
    public var sampleRate: Int
    /// Whether this is a built-in system voice (no model needed).
    public var isSystem: Bool

    public init(id: String, name: String, language: String, sampleRate: Int, isSystem: Bool) {
        self.id = id
        self.name = name
        self.language = language
        self.sampleRate = sampleRate
        self.isSystem = isSystem
    }
}

/// Synthesized speech.
public struct TTSOutput: Sendable, Equatable {
    /// The audio (mono).
    public var audio: AudioBuffer
    /// The text that was spoken.
    public var text: String
    /// The voice that spoke.
    public var voice: String
    /// Wall-clock synthesis time, in milliseconds.
    public var processingTimeMs: Double

    public init(audio: AudioBuffer, text: String, voice: String, processingTimeMs: Double) {
        self.audio = audio
        self.text = text
        self.voice = voice
        self.processingTimeMs = processingTimeMs
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

/// What ``RunAnywhere/speak(_:options:output:)`` did.
public struct TTSSpeakResult: Sendable, Equatable {
    /// Seconds of audio played.
    public var duration: TimeInterval
    /// From the call to the first audio handed to the output, in milliseconds.
    public var firstAudioMs: Double
    /// From the call to the end of playback, in milliseconds.
    public var totalMs: Double
    /// Pieces of text synthesized.
    public var chunks: Int
}
