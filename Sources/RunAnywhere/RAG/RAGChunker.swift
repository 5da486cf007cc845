#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Cuts a document into chunks of at most `chunkTokens` tokens of the embedding model,
/// ending at sentence and paragraph boundaries, with whole sentences of overlap.
///
/// Works on the document's UTF-8 bytes so a 10 MB document costs one copy, and every
/// chunk's offsets point into the original text.
struct RAGChunker: Sendable {
    /// Counts tokens of several texts at once.
    typealias TokenCounter = @Sendable ([String]) async throws(SDKException) -> [Int]

    /// One chunk: a byte range of the document, its text and its token count.
    struct Chunk: Sendable, Equatable {
        var start: Int
        var end: Int
        var text: String
        var tokens: Int
    }

    /// A sentence, line or (for over-long sentences) a run of words.
    private struct Unit {
        var start: Int
        var end: Int
        var tokens: Int
        /// Ends a paragraph (a blank line follows), a good place to end a chunk.
        var endsParagraph: Bool
    }

    let options: RAGChunkingOptions
    let countTokens: TokenCounter

    func chunks(of text: String) async throws(SDKException) -> [Chunk] {
        let bytes = Array(text.utf8)
        var units = Self.sentences(in: bytes)
        let counts = try await countTokens(units.map { Self.string(bytes, $0.start, $0.end) })
        for index in units.indices { units[index].tokens = counts[index] }
        var fitted: [Unit] = []
        for unit in units {
            if unit.tokens <= options.chunkTokens {
                fitted.append(unit)
            } else {
                fitted += try await split(unit, bytes: bytes)
            }
        }
        return pack(fitted, bytes: bytes)
    }

    // MARK: Units

    /// Sentences (ending in . ! ? followed by white space) and lines, trimmed of white space.
    private static func sentences(in bytes: [UInt8]) -> [Unit] {
        var units: [Unit] = []
        var start = 0
        var index = 0
        func emit(_ end: Int, paragraph: Bool) {
            var lower = start
            var upper = end
            while lower < upper, isSpace(bytes[lower]) { lower += 1 }
            while upper > lower, isSpace(bytes[upper - 1]) { upper -= 1 }
            if lower < upper {
                units.append(Unit(start: lower, end: upper, tokens: 0, endsParagraph: paragraph))
            } else if paragraph, !units.isEmpty {
                units[units.count - 1].endsParagraph = true
            }
            start = end
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0A {
                // A blank line (only white space until the next newline) ends a paragraph.
                var look = index + 1
                while look < bytes.count, bytes[look] != 0x0A, isSpace(bytes[look]) { look += 1 }
                emit(index + 1, paragraph: look < bytes.count && bytes[look] == 0x0A)
            } else if byte == 0x2E || byte == 0x21 || byte == 0x3F {  // . ! ?
                var end = index + 1
                // Closing quotes and brackets stay with their sentence.
                while end < bytes.count, [0x22, 0x27, 0x29, 0x5D].contains(bytes[end]) { end += 1 }
                if end < bytes.count, isSpace(bytes[end]) {
                    emit(end, paragraph: false)
                    index = end
                    continue
                }
            }
            index += 1
        }
        emit(bytes.count, paragraph: true)
        return units
    }

    /// A sentence longer than a chunk, cut between words (and a word longer than a chunk
    /// between characters).
    private func split(_ unit: Unit, bytes: [UInt8]) async throws(SDKException) -> [Unit] {
        var words: [Unit] = []
        var index = unit.start
        while index < unit.end {
            while index < unit.end, Self.isSpace(bytes[index]) { index += 1 }
            let begin = index
            while index < unit.end, !Self.isSpace(bytes[index]) { index += 1 }
            guard begin < index else { continue }
            words += Self.pieces(begin, index, bytes: bytes, maxScalars: max(1, options.chunkTokens / 4))
        }
        let counts = try await countTokens(words.map { Self.string(bytes, $0.start, $0.end) })
        var runs: [Unit] = []
        var current: Unit?
        for (word, count) in zip(words, counts) {
            if var run = current, run.tokens + count <= options.chunkTokens {
                run.end = word.end
                run.tokens += count
                current = run
            } else {
                if let run = current { runs.append(run) }
                current = Unit(start: word.start, end: word.end, tokens: count, endsParagraph: false)
            }
        }
        if var run = current {
            run.endsParagraph = unit.endsParagraph
            runs.append(run)
        }
        return runs
    }

    /// A word cut into pieces of at most `maxScalars` Unicode scalars (a tokenizer makes at
    /// most a few tokens of one scalar).
    private static func pieces(_ start: Int, _ end: Int, bytes: [UInt8], maxScalars: Int) -> [Unit] {
        var pieces: [Unit] = []
        var begin = start
        var index = start
        var scalars = 0
        while index < end {
            // Continuation bytes (10xxxxxx) never start a scalar.
            if bytes[index] & 0xC0 != 0x80 {
                if scalars == maxScalars {
                    pieces.append(Unit(start: begin, end: index, tokens: 0, endsParagraph: false))
                    begin = index
                    scalars = 0
                }
                scalars += 1
            }
            index += 1
        }
        pieces.append(Unit(start: begin, end: end, tokens: 0, endsParagraph: false))
        return pieces
    }

    // MARK: Packing

    private func pack(_ units: [Unit], bytes: [UInt8]) -> [Chunk] {
        var chunks: [Chunk] = []
        var current: [Unit] = []
        var tokens = 0
        func emit() {
            guard let first = current.first, let last = current.last else { return }
            chunks.append(
                Chunk(
                    start: first.start,
                    end: last.end,
                    text: Self.string(bytes, first.start, last.end),
                    tokens: tokens
                )
            )
            // Carry whole trailing sentences worth at most `overlapTokens` into the next chunk.
            var carried: [Unit] = []
            var carriedTokens = 0
            for unit in current.dropFirst().reversed() {
                guard carriedTokens + unit.tokens <= options.overlapTokens else { break }
                carried.insert(unit, at: 0)
                carriedTokens += unit.tokens
            }
            current = carried
            tokens = carriedTokens
        }
        for unit in units {
            if tokens + unit.tokens > options.chunkTokens, current.count > 0 {
                let onlyOverlap = chunks.last.map { $0.end == current.last?.end } ?? false
                if onlyOverlap {
                    // The carried overlap alone plus this unit does not fit: start afresh.
                    current = []
                    tokens = 0
                } else {
                    emit()
                    if tokens + unit.tokens > options.chunkTokens {
                        current = []
                        tokens = 0
                    }
                }
            }
            current.append(unit)
            tokens += unit.tokens
            // A paragraph end is a good place to stop once the chunk is mostly full.
            if unit.endsParagraph, tokens * 4 >= options.chunkTokens * 3 { emit() }
        }
        if let last = current.last, chunks.last?.end != last.end { emit() }
        return chunks
    }

    // MARK: Bytes

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D || byte == 0x0C || byte == 0x0B
    }

    private static func string(_ bytes: [UInt8], _ start: Int, _ end: Int) -> String {
        String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
