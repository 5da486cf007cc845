#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The wake-word fallback when no keyword spotter is registered: it transcribes a sliding
/// window of the stream with the loaded speech-to-text model and looks for the phrase's
/// words in the text.
///
/// It costs a transcription every ``hop`` while someone speaks (silence is skipped), and it
/// dates a detection by the end of the window that held it, up to one hop late. With
/// `sensitivity` of 0.75 or more, a word of four letters or more may differ by one letter
/// ("computor"), which catches what a small model mishears.
actor TranscriptWakeWordService: WakeWordService {
    /// The audio one transcription sees, in seconds: room for a phrase and what surrounds it.
    static let window: TimeInterval = 2
    /// How often the window moves, in seconds.
    static let hop: TimeInterval = 0.5
    /// A window whose loudest 20 ms is quieter than this (dBFS) holds no speech.
    static let speechFloorDecibels: Float = -45

    private let phrases: [(phrase: String, words: [String])]
    private let fuzzy: Bool
    private let transcribe: @Sendable (PCMAudio) async throws -> String
    private let rate = 16_000
    /// The most recent audio, at most one window.
    private var recent: [Float] = []
    /// Samples since the stream (re)started, and since the last transcription.
    private var total = 0
    private var sinceLast = 0

    init(configuration: WakeWordConfiguration, transcribe: @escaping @Sendable (PCMAudio) async throws -> String) {
        phrases = zip(configuration.phrases, configuration.phraseWords).map { ($0, $1) }
        fuzzy = configuration.sensitivity >= 0.75
        self.transcribe = transcribe
    }

    func process(_ chunk: PCMAudio) async throws -> [WakeWordSpot] {
        let samples = chunk.speechInput().samples
        var spots: [WakeWordSpot] = []
        let windowLength = Int(Self.window * Double(rate))
        let hopLength = Int(Self.hop * Double(rate))
        var start = samples.startIndex
        while start < samples.endIndex {
            // Up to the next hop boundary, so each hop is judged once however chunks fall.
            let end = min(samples.endIndex, start + hopLength - sinceLast)
            recent += samples[start..<end]
            if recent.count > windowLength { recent.removeFirst(recent.count - windowLength) }
            total += end - start
            sinceLast += end - start
            start = end
            guard sinceLast >= hopLength else { continue }
            sinceLast = 0
            let audio = PCMAudio(samples: recent, sampleRate: rate)
            guard (audio.frameLevels().max() ?? -.infinity) > Self.speechFloorDecibels else { continue }
            let heard = WordErrorRate.words(try await transcribe(audio))
            if let found = phrases.first(where: {
                WakeWordConfiguration.contains(heard, phrase: $0.words, fuzzy: fuzzy)
            }) {
                spots.append(WakeWordSpot(phrase: found.phrase, time: Double(total) / Double(rate)))
                // The phrase is spent: the next windows must not find it again.
                recent = []
            }
        }
        return spots
    }

    func reset() async {
        recent = []
        total = 0
        sinceLast = 0
    }
}
