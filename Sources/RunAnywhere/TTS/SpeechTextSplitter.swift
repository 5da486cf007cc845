#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Cuts text into pieces a voice can speak one at a time.
///
/// Sentences first (so the first audio is ready after one sentence, not the whole text);
/// a sentence longer than `maxLength` characters is cut at clause punctuation, then at
/// spaces, so no piece overwhelms the engine.
struct SpeechTextSplitter {
    var maxLength = 300

    func split(_ text: String) -> [String] {
        var pieces: [String] = []
        for sentence in sentences(text) {
            if sentence.count <= maxLength {
                pieces.append(sentence)
                continue
            }
            var current = ""
            for clause in split(sentence, after: ",;:—–") {
                if clause.count > maxLength {
                    if !current.isEmpty {
                        pieces.append(current)
                        current = ""
                    }
                    pieces += wrap(clause)
                } else if current.count + clause.count + 1 > maxLength {
                    pieces.append(current)
                    current = clause
                } else {
                    current = current.isEmpty ? clause : current + " " + clause
                }
            }
            if !current.isEmpty { pieces.append(current) }
        }
        return pieces
    }

    /// Sentences end at `.`, `!`, `?`, `…` or a line break, when followed by space or the end.
    private func sentences(_ text: String) -> [String] {
        split(text, after: ".!?…\n")
    }

    private func split(_ text: String, after terminators: String) -> [String] {
        var result: [String] = []
        var current = ""
        var previousWasTerminator = false
        for character in text {
            if previousWasTerminator, character.isWhitespace {
                append(&result, current)
                current = ""
                previousWasTerminator = false
                continue
            }
            current.append(character)
            previousWasTerminator = terminators.contains(character)
        }
        append(&result, current)
        return result
    }

    private func wrap(_ text: String) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(whereSeparator: \.isWhitespace) {
            var word = String(word)
            while word.count > maxLength {
                if !current.isEmpty {
                    lines.append(current)
                    current = ""
                }
                lines.append(String(word.prefix(maxLength)))
                word = String(word.dropFirst(maxLength))
            }
            if current.count + word.count + 1 > maxLength, !current.isEmpty {
                lines.append(current)
                current = word
            } else {
                current = current.isEmpty ? word : current + " " + word
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    private func append(_ result: inout [String], _ piece: String) {
        let trimmed = piece.trimmed()
        // A piece without a letter or digit ("...", "—") has nothing to say.
        if trimmed.contains(where: { $0.isLetter || $0.isNumber }) { result.append(trimmed) }
    }
}
