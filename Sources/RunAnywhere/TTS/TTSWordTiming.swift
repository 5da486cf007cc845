#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When one word is heard in synthesized audio.
public struct TTSWordTiming: Sendable, Codable, Equatable {
    /// The word as written in the text spoken.
    public var text: String
    /// Seconds from the start of the audio to the word.
    public var start: TimeInterval
    /// Seconds from the start of the audio to the word's end.
    public var end: TimeInterval
    /// Whether the time is the SDK's estimate (spread over the voiced audio by the words'
    /// lengths) rather than the engine's own report (espeak-ng's word events).
    public var estimated: Bool

    /// Creates a timing.
    public init(text: String, start: TimeInterval, end: TimeInterval, estimated: Bool) {
        self.text = text
        self.start = start
        self.end = end
        self.estimated = estimated
    }

    /// The same timing `seconds` later.
    func shifted(by seconds: TimeInterval) -> TTSWordTiming {
        TTSWordTiming(text: text, start: start + seconds, end: end + seconds, estimated: estimated)
    }

    /// Timings for `text` spread over the voiced part of `audio` (where 10 ms windows rise
    /// above −45 dBFS) in proportion to the words' lengths, a word's share including the
    /// space after it.
    @_spi(Backend) public static func estimate(_ text: String, in audio: PCMAudio) -> [TTSWordTiming] {
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init).filter {
            $0.contains { $0.isLetter || $0.isNumber }
        }
        guard !words.isEmpty, audio.duration > 0 else { return [] }
        let windows = audio.chunks(duration: 0.01)
        let voiced = windows.indices.filter { windows[$0].rmsDecibels > -45 }
        let start = Double(voiced.first ?? 0) * 0.01
        let end = min(audio.duration, Double((voiced.last ?? windows.count - 1) + 1) * 0.01)
        let weights = words.map { Double($0.count + 1) }
        let total = weights.reduce(0, +)
        var cursor = start
        return zip(words, weights).map { word, weight in
            let length = (end - start) * weight / total
            defer { cursor += length }
            return TTSWordTiming(
                text: word,
                start: cursor,
                end: cursor + length * Double(word.count) / weight,
                estimated: true
            )
        }
    }
}
