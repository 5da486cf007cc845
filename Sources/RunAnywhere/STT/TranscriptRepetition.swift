#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Finds a decoder that looped: a transcript that says a phrase twice in a row, as in
/// "Front, right. Front, right.", one word three times, or a run of marks with no words.
package enum TranscriptRepetition {
    /// Whether the words of `text` (normalized as ``WordErrorRate`` counts them) repeat a
    /// phrase of two or more words back to back, or one word three times; or whether `text`
    /// has three pieces in a row without a letter or digit, such as `" " "`, a loop that
    /// normalized words cannot show because it has none.
    package static func repeatsPhrase(_ text: String) -> Bool {
        repeatsMarks(text) || repeatsPhrase(words: WordErrorRate.words(text))
    }

    private static func repeatsMarks(_ text: String) -> Bool {
        var run = 0
        for piece in text.split(whereSeparator: \.isWhitespace) {
            run = piece.contains(where: { $0.isLetter || $0.isNumber }) ? 0 : run + 1
            if run >= 3 { return true }
        }
        return false
    }

    package static func repeatsPhrase(words: [String]) -> Bool {
        guard words.count >= 2 else { return false }
        for length in 1...(words.count / 2) {
            for start in 0...(words.count - 2 * length) {
                guard words[start..<start + length].elementsEqual(words[start + length..<start + 2 * length]) else {
                    continue
                }
                if length >= 2 { return true }
                if start + 2 < words.count, words[start + 2] == words[start] { return true }
            }
        }
        return false
    }
}
