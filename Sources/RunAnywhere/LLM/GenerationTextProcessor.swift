/// Turns the raw byte pieces of sampled tokens into text the caller may see.
///
/// Three things can straddle token boundaries and are handled here, once, for every
/// backend: a UTF-8 character split over two tokens, a stop sequence split over several,
/// and the tags around reasoning (`<think>`/`</think>`, or the model's own). Text is held
/// back only while it could still turn out to be one of those; everything else is released
/// at once, so streaming stays token-by-token. The same segments feed the stream and the
/// final result, so the streamed answer always equals the result's text.
struct GenerationTextProcessor {
    struct Segment: Equatable {
        var text: String
        var isThinking: Bool
    }

    private let stopSequences: [String]
    private let tags: ReasoningTags
    private var pendingBytes: [UInt8] = []
    /// Decoded text not yet cleared of a possible stop sequence.
    private var held = ""
    /// Cleared text not yet cleared of a possible reasoning tag.
    private var tagHeld = ""
    private var inThinking: Bool
    private var trimNextAnswerStart = false
    private(set) var stopSequenceHit = false

    private(set) var answer = ""
    private(set) var thinking = ""
    private(set) var sawThinking: Bool
    /// Everything cleared of stop sequences, tags included: what a chat layer's parser reads.
    private(set) var raw = ""

    /// A processor for one generation; `startsInReasoning` when the prompt ends inside an
    /// opened reasoning block (templates that open it for the model).
    init(stopSequences: [String], tags: ReasoningTags = .think, startsInReasoning: Bool = false) {
        self.stopSequences = stopSequences.filter { !$0.isEmpty }  // "" would match at once
        self.tags = tags
        self.inThinking = startsInReasoning
        self.sawThinking = startsInReasoning
    }

    /// Feeds one token's bytes; returns the segments now safe to show.
    mutating func consume(_ bytes: [UInt8]) -> [Segment] {
        guard !stopSequenceHit else { return [] }
        pendingBytes += bytes
        let cut = Self.completeUTF8Prefix(pendingBytes)
        guard cut > 0 else { return [] }
        held += String(decoding: pendingBytes[..<cut], as: UTF8.self)
        pendingBytes.removeFirst(cut)
        return release(final: false)
    }

    /// Flushes whatever is still held at the end of generation.
    mutating func finish() -> [Segment] {
        if !pendingBytes.isEmpty, !stopSequenceHit {
            held += String(decoding: pendingBytes, as: UTF8.self)
            pendingBytes.removeAll()
        }
        return release(final: true)
    }

    private mutating func release(final: Bool) -> [Segment] {
        var cleared: String
        if let match = earliestStopSequence(in: held) {
            cleared = String(held[..<match])
            held = ""
            stopSequenceHit = true
        } else if final {
            cleared = held
            held = ""
        } else {
            let keep = Self.longestSuffixThatPrefixes(held, any: stopSequences)
            cleared = String(held.dropLast(keep))
            held = String(held.suffix(keep))
        }
        raw += cleared
        return splitThinking(cleared, final: final || stopSequenceHit)
    }

    private func earliestStopSequence(in text: String) -> String.Index? {
        stopSequences.compactMap { text.firstRange(of: $0)?.lowerBound }.min()
    }

    private mutating func splitThinking(_ text: String, final: Bool) -> [Segment] {
        tagHeld += text
        var segments: [Segment] = []
        while true {
            let candidates = inThinking ? tags.close : [tags.open]
            let found = candidates.compactMap { tagHeld.firstRange(of: $0) }.min { $0.lowerBound < $1.lowerBound }
            if let range = found {
                emit(String(tagHeld[..<range.lowerBound]), into: &segments)
                tagHeld = String(tagHeld[range.upperBound...])
                if !inThinking { sawThinking = true }
                inThinking.toggle()
                trimNextAnswerStart = !inThinking
                continue
            }
            let keep = final ? 0 : Self.longestSuffixThatPrefixes(tagHeld, any: candidates)
            emit(String(tagHeld.dropLast(keep)), into: &segments)
            tagHeld = String(tagHeld.suffix(keep))
            return segments
        }
    }

    private mutating func emit(_ text: String, into segments: inout [Segment]) {
        var text = text
        if !inThinking, trimNextAnswerStart {
            // The answer after a reasoning block conventionally starts with blank lines.
            text = String(text.drop(while: \.isWhitespace))
            if !text.isEmpty { trimNextAnswerStart = false }
        }
        guard !text.isEmpty else { return }
        if inThinking { thinking += text } else { answer += text }
        if let last = segments.last, last.isThinking == inThinking {
            segments[segments.count - 1].text += text
        } else {
            segments.append(Segment(text: text, isThinking: inThinking))
        }
    }

    /// Length of the longest suffix of `text` that is a proper prefix of one of `patterns`.
    static func longestSuffixThatPrefixes(_ text: String, any patterns: [String]) -> Int {
        var best = 0
        for pattern in patterns {
            var length = min(pattern.count - 1, text.count)
            while length > best {
                if pattern.hasPrefix(text.suffix(length)) {
                    best = length
                    break
                }
                length -= 1
            }
        }
        return best
    }

    /// Length of the longest prefix of `bytes` that does not end inside a UTF-8 character.
    static func completeUTF8Prefix(_ bytes: [UInt8]) -> Int {
        let n = bytes.count
        var i = n - 1
        // Walk back over at most three continuation bytes to the last lead byte.
        while i >= 0, i >= n - 4, bytes[i] & 0xC0 == 0x80 { i -= 1 }
        guard i >= 0, i >= n - 4 else { return n }
        let lead = bytes[i]
        let width = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        return n - i < width ? i : n
    }
}
