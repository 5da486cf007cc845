#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How far a transcript is from what was said: the word error rate, with its substitutions,
/// deletions and insertions.
///
/// Both texts are normalized first, as STT evaluations do, so that only words count:
/// lower case, punctuation dropped (hyphens split words, dots inside abbreviations such as
/// "a.m." join them), numbers written in words ("10" and "ten" match, "3rd" and "third"),
/// and a few titles spelled out ("Mr." is "mister").
///
/// ```swift
/// let output = try await RunAnywhere.transcribe(audio)
/// let wer = WordErrorRate(reference: "Turn on the kitchen lights.", hypothesis: output.text)
/// print(wer.rate)  // 0.0 when every word is right
/// ```
///
/// Over a test set, add the counts of every clip with ``init(combining:)``: the rate of the
/// whole set weighs each clip by its number of words.
public struct WordErrorRate: Sendable, Codable, Equatable {
    /// Reference words the transcript has as another word.
    public var substitutions: Int
    /// Reference words missing from the transcript.
    public var deletions: Int
    /// Transcript words that are not in the reference.
    public var insertions: Int
    /// Words in the normalized reference.
    public var referenceWords: Int

    /// Substitutions, deletions and insertions together.
    public var errors: Int { substitutions + deletions + insertions }

    /// Errors over reference words; a transcript with words for an empty reference is 1 per word.
    public var rate: Double {
        referenceWords > 0 ? Double(errors) / Double(referenceWords) : Double(errors)
    }

    /// Compares a transcript with the reference by the minimum number of word edits.
    public init(reference: String, hypothesis: String) {
        self.init(referenceWords: Self.words(reference), hypothesisWords: Self.words(hypothesis))
    }

    /// The counts of several comparisons added up: the error rate of a whole test set.
    public init(combining results: some Sequence<WordErrorRate>) {
        substitutions = 0
        deletions = 0
        insertions = 0
        referenceWords = 0
        for result in results {
            substitutions += result.substitutions
            deletions += result.deletions
            insertions += result.insertions
            referenceWords += result.referenceWords
        }
    }

    /// Compares two already normalized word lists.
    public init(referenceWords reference: [String], hypothesisWords hypothesis: [String]) {
        // One row of the edit-distance table at a time, each cell with its three counts,
        // so that the alignment with the fewest edits also says what the edits were.
        struct Cell {
            var substitutions = 0
            var deletions = 0
            var insertions = 0
            var total: Int { substitutions + deletions + insertions }
        }
        var previous = (0...hypothesis.count).map { Cell(insertions: $0) }
        for (i, referenceWord) in reference.enumerated() {
            var current = [Cell(deletions: i + 1)]
            current.reserveCapacity(hypothesis.count + 1)
            for (j, hypothesisWord) in hypothesis.enumerated() {
                var diagonal = previous[j]
                if referenceWord != hypothesisWord { diagonal.substitutions += 1 }
                var up = previous[j + 1]
                up.deletions += 1
                var left = current[j]
                left.insertions += 1
                current.append([diagonal, up, left].min { $0.total < $1.total }!)
            }
            previous = current
        }
        let best = previous[hypothesis.count]
        substitutions = best.substitutions
        deletions = best.deletions
        insertions = best.insertions
        referenceWords = reference.count
    }

    /// A text's words after normalization, the units the error rate counts.
    public static func words(_ text: String) -> [String] {
        var cleaned = ""
        let characters = Array(text.lowercased())
        for (index, character) in characters.enumerated() {
            let before = index > 0 ? characters[index - 1] : " "
            let after = index + 1 < characters.count ? characters[index + 1] : " "
            if character.isLetter || character.isNumber {
                cleaned.append(character)
            } else if character == "'" || character == "’" {
                // Inside a word ("don't") it stays; as a quotation mark it goes.
                cleaned.append(before.isLetter && after.isLetter ? "'" : " ")
            } else if character == "." && before.isLetter && after.isLetter {
                continue  // "a.m." is one word
            } else if character == "," && before.isNumber && after.isNumber {
                continue  // "1,000" is one number
            } else {
                cleaned.append(" ")
            }
        }
        return cleaned.split(separator: " ").flatMap { token -> [String] in
            let word = String(token)
            if let spelled = titles[word] { return [spelled] }
            return NumberWords.spell(word) ?? [word]
        }
    }

    private static let titles = ["mr": "mister", "mrs": "missus", "dr": "doctor", "ok": "okay"]
}

/// Numbers as words, for ``WordErrorRate``: "42" is "forty two", "3rd" is "third".
private enum NumberWords {
    private static let ones = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    private static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    private static let ordinals = [
        "one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
        "nine": "ninth", "twelve": "twelfth",
    ]

    /// The words of a token made of digits, optionally with an ordinal suffix ("21st");
    /// `nil` for anything else or for numbers of a billion and more.
    static func spell(_ token: String) -> [String]? {
        var digits = Substring(token)
        var ordinal = false
        for suffix in ["st", "nd", "rd", "th"] where digits.hasSuffix(suffix) {
            digits = digits.dropLast(2)
            ordinal = true
        }
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
            let value = Int(digits)
        else { return nil }
        var words = spell(value)
        if ordinal, let last = words.popLast() {
            if let irregular = ordinals[last] {
                words.append(irregular)
            } else if last.hasSuffix("y") {
                words.append(last.dropLast() + "ieth")
            } else {
                words.append(last + "th")
            }
        }
        return words
    }

    private static func spell(_ value: Int) -> [String] {
        if value < 20 { return [ones[value]] }
        if value < 100 { return [tens[value / 10]] + (value % 10 > 0 ? [ones[value % 10]] : []) }
        if value < 1000 {
            return [ones[value / 100], "hundred"] + (value % 100 > 0 ? spell(value % 100) : [])
        }
        if value < 1_000_000 {
            return spell(value / 1000) + ["thousand"] + (value % 1000 > 0 ? spell(value % 1000) : [])
        }
        return spell(value / 1_000_000) + ["million"] + (value % 1_000_000 > 0 ? spell(value % 1_000_000) : [])
    }
}
