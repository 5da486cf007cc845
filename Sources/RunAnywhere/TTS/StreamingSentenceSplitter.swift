#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
