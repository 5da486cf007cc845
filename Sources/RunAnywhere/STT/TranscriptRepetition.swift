import Foundation

/// Finds a decoder that looped: a transcript that says a phrase twice in a row, as in
/// "Front, right. Front, right.", or one word three times.
package enum TranscriptRepetition {
    /// Whether the words of `text` (normalized as ``WordErrorRate`` counts them) repeat a
    /// phrase of two or more words back to back, or one word three times.
    package static func repeatsPhrase(_ text: String) -> Bool {
        repeatsPhrase(words: WordErrorRate.words(text))
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
