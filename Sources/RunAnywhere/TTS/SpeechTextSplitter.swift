import Foundation

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
            if sentence.count <= maxLength { pieces.append(sentence); continue }
            var current = ""
            for clause in split(sentence, after: ",;:—–") {
                if clause.count > maxLength {
                    if !current.isEmpty { pieces.append(current); current = "" }
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
                if !current.isEmpty { lines.append(current); current = "" }
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
        let trimmed = piece.trimmingCharacters(in: .whitespacesAndNewlines)
        // A piece without a letter or digit ("...", "—") has nothing to say.
        if trimmed.contains(where: { $0.isLetter || $0.isNumber }) { result.append(trimmed) }
    }
}

/// Cuts streamed text (LLM tokens) into sentences as soon as each one is complete, so the
/// first sentence can be spoken while the rest is still being generated.
struct StreamingSentenceSplitter {
    /// Past this many characters without a sentence end, a clause boundary will do.
    var clauseCutLength = 120
    /// The first piece may end at a clause once it is this long: the sooner the first
    /// audio, the sooner the listener hears an answer.
    var firstClauseCutLength = 24
    private var buffer = ""
    private var emitted = false

    /// Adds text; returns the sentences it completed.
    mutating func feed(_ text: String) -> [String] {
        buffer += text
        guard let cut = lastBoundary() else { return [] }
        let ready = String(buffer[..<cut])
        buffer = String(buffer[cut...])
        let pieces = SpeechTextSplitter().split(ready)
        if !pieces.isEmpty { emitted = true }
        return pieces
    }

    /// The rest, at the end of the stream.
    mutating func finish() -> [String] {
        defer { buffer = "" }
        return SpeechTextSplitter().split(buffer)
    }

    /// The end of the last complete sentence in the buffer (a terminator followed by
    /// whitespace), or of the last clause when the buffer has grown long.
    private func lastBoundary() -> String.Index? {
        var sentenceEnd: String.Index?
        var clauseEnd: String.Index?
        var previous: Character?
        for index in buffer.indices {
            let character = buffer[index]
            if character.isWhitespace, let previous {
                if ".!?…".contains(previous) { sentenceEnd = index }
                if ",;:".contains(previous) { clauseEnd = index }
            }
            if character == "\n" { sentenceEnd = buffer.index(after: index) }
            previous = character
        }
        if let sentenceEnd { return sentenceEnd }
        if buffer.count > (emitted ? clauseCutLength : firstClauseCutLength) { return clauseEnd }
        return nil
    }
}
