#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the wake-word spotter listens for.
///
/// ```swift
/// let wake = WakeWordConfiguration(phrases: ["hey computer"], sensitivity: 0.5)
/// for try await detection in RunAnywhere.startWakeWord(input: microphone, configuration: wake) {
///     print("heard \(detection.phrase) at \(detection.time) s")
/// }
/// ```
public struct WakeWordConfiguration: Sendable, Codable, Equatable {
    /// The phrases, in plain words ("hey computer"). Two or three words of several
    /// syllables are spotted far more reliably than one short word.
    public var phrases: [String]
    /// From 0 (only the clearest utterances count: fewer false accepts, more misses) to 1
    /// (anything close counts). 0.5 suits most phrases.
    public var sensitivity: Float

    /// Creates a configuration.
    public init(phrases: [String], sensitivity: Float = 0.5) {
        self.phrases = phrases
        self.sensitivity = sensitivity
    }

    /// Each phrase as the words the spotter matches: lower case, without punctuation.
    public var phraseWords: [[String]] { phrases.map { WordErrorRate.words($0) } }

    /// Whether `words` hold `phrase` as a run of consecutive words; with `fuzzy`, a word of
    /// four letters or more may be one letter off.
    package static func contains(_ words: [String], phrase: [String], fuzzy: Bool = false) -> Bool {
        guard !phrase.isEmpty, words.count >= phrase.count else { return false }
        return (0...(words.count - phrase.count)).contains { offset in
            zip(words[offset...], phrase).allSatisfy { heard, wanted in
                heard == wanted || (fuzzy && wanted.count >= 4 && editDistance(heard, wanted) <= 1)
            }
        }
    }

    /// Levenshtein distance between two words.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j] + (x == y ? 0 : 1), previous[j + 1] + 1, current[j] + 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// Throws ``SDKException/Code/invalidConfiguration`` for no phrases, a phrase without
    /// words, the same phrase twice, or a sensitivity outside 0...1.
    public func validate() throws(SDKException) {
        guard !phrases.isEmpty else {
            throw SDKException(.invalidConfiguration, "A wake-word configuration needs at least one phrase")
        }
        var seen = Set<[String]>()
        for (phrase, words) in zip(phrases, phraseWords) {
            guard !words.isEmpty else {
                throw SDKException(.invalidConfiguration, "The wake phrase \"\(phrase)\" has no words")
            }
            guard words.count <= 8 else {
                throw SDKException(.invalidConfiguration, "The wake phrase \"\(phrase)\" is longer than 8 words")
            }
            guard seen.insert(words).inserted else {
                throw SDKException(.invalidConfiguration, "The wake phrase \"\(phrase)\" is given twice")
            }
        }
        guard sensitivity.isFinite, (0...1).contains(sensitivity) else {
            throw SDKException(.invalidConfiguration, "sensitivity must be between 0 and 1 (got \(sensitivity))")
        }
    }
}
