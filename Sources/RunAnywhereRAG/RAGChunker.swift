@_spi(Backend) import RunAnywhere

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

    /// How many sentences (or words) are counted at once. Units are made, counted and packed a
    /// batch at a time, so the work beside the document's bytes stays a fixed size whatever
    /// its shape; a document of two-byte sentences would otherwise hold some fifty bytes per
    /// sentence at once.
    static let batchSize = 512

    func chunks(of text: String) async throws(SDKException) -> [Chunk] {
        let bytes = Array(text.utf8)
        var sentences = SentenceScanner(bytes: bytes)
        var packer = Packer(options: options)
        while case let batch = try await countedBatch(from: &sentences, bytes: bytes), !batch.isEmpty {
            for unit in batch {
                if unit.tokens <= options.chunkTokens {
                    packer.add(unit, bytes: bytes)
                } else {
                    try await split(unit, bytes: bytes, into: &packer)
                }
            }
        }
        packer.finish(bytes: bytes)
        return packer.chunks
    }

    // MARK: Units

    /// What yields a text's units one at a time.
    private protocol UnitScanner {
        mutating func next() -> Unit?
    }

    /// The next ``batchSize`` units of `scanner` (fewer at its end, none after it), each with its
    /// token count.
    private func countedBatch(
        from scanner: inout some UnitScanner,
        bytes: [UInt8]
    ) async throws(SDKException) -> [Unit] {
        var batch: [Unit] = []
        while batch.count < Self.batchSize, let unit = scanner.next() { batch.append(unit) }
        guard !batch.isEmpty else { return [] }
        let counts = try await countTokens(batch.map { Self.string(bytes, $0.start, $0.end) })
        for (index, count) in zip(batch.indices, counts) { batch[index].tokens = count }
        return batch
    }

    /// Sentences (ending in . ! ? followed by white space) and lines, trimmed of white space,
    /// one at a time. A unit is held back until the next is found, since a blank line after it
    /// marks it as a paragraph's end.
    private struct SentenceScanner: UnitScanner {
        let bytes: [UInt8]
        var start = 0
        var index = 0
        var pending: Unit?
        var finished = false

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func next() -> Unit? {
            while !finished {
                if let unit = step() { return unit }
            }
            defer { pending = nil }
            return pending
        }

        /// Reads up to the next unit boundary; returns the unit it releases, if any.
        private mutating func step() -> Unit? {
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x0A {
                    // A blank line (only white space until the next newline) ends a paragraph.
                    var look = index + 1
                    while look < bytes.count, bytes[look] != 0x0A, RAGChunker.isSpace(bytes[look]) { look += 1 }
                    index += 1
                    if let released = emit(index, paragraph: look < bytes.count && bytes[look] == 0x0A) {
                        return released
                    }
                    continue
                } else if byte == 0x2E || byte == 0x21 || byte == 0x3F {  // . ! ?
                    var end = index + 1
                    // Closing quotes and brackets stay with their sentence.
                    while end < bytes.count, [0x22, 0x27, 0x29, 0x5D].contains(bytes[end]) { end += 1 }
                    if end < bytes.count, RAGChunker.isSpace(bytes[end]) {
                        index = end
                        if let released = emit(end, paragraph: false) { return released }
                        continue
                    }
                }
                index += 1
            }
            finished = true
            return emit(bytes.count, paragraph: true)
        }

        /// Ends the unit at `end`; returns the one held back before it when this one is new.
        private mutating func emit(_ end: Int, paragraph: Bool) -> Unit? {
            var lower = start
            var upper = end
            while lower < upper, RAGChunker.isSpace(bytes[lower]) { lower += 1 }
            while upper > lower, RAGChunker.isSpace(bytes[upper - 1]) { upper -= 1 }
            start = end
            if lower < upper {
                let released = pending
                pending = Unit(start: lower, end: upper, tokens: 0, endsParagraph: paragraph)
                return released
            }
            if paragraph { pending?.endsParagraph = true }
            return nil
        }
    }

    /// A sentence longer than a chunk, cut between words (and a word longer than a chunk
    /// between characters), in runs that fit, handed to the packer as they are made.
    private func split(_ unit: Unit, bytes: [UInt8], into packer: inout Packer) async throws(SDKException) {
        var words = WordScanner(
            bytes: bytes,
            index: unit.start,
            end: unit.end,
            maxScalars: max(1, options.chunkTokens / 4)
        )
        var current: Unit?
        while case let batch = try await countedBatch(from: &words, bytes: bytes), !batch.isEmpty {
            for word in batch {
                if var run = current, run.tokens + word.tokens <= options.chunkTokens {
                    run.end = word.end
                    run.tokens += word.tokens
                    current = run
                } else {
                    if let run = current { packer.add(run, bytes: bytes) }
                    current = word
                }
            }
        }
        if var run = current {
            run.endsParagraph = unit.endsParagraph
            packer.add(run, bytes: bytes)
        }
    }

    /// The words of a range one at a time, each cut into pieces of at most `maxScalars`
    /// Unicode scalars (a tokenizer makes at most a few tokens of one scalar).
    private struct WordScanner: UnitScanner {
        let bytes: [UInt8]
        var index: Int
        let end: Int
        let maxScalars: Int

        mutating func next() -> Unit? {
            while index < end, RAGChunker.isSpace(bytes[index]) { index += 1 }
            guard index < end else { return nil }
            let begin = index
            var scalars = 0
            while index < end, !RAGChunker.isSpace(bytes[index]) {
                // Continuation bytes (10xxxxxx) never start a scalar.
                if bytes[index] & 0xC0 != 0x80 {
                    if scalars == maxScalars { break }
                    scalars += 1
                }
                index += 1
            }
            return Unit(start: begin, end: index, tokens: 0, endsParagraph: false)
        }
    }

    // MARK: Packing

    /// Gathers units into chunks as they come.
    private struct Packer {
        let options: RAGChunkingOptions
        var chunks: [Chunk] = []
        var current: [Unit] = []
        var tokens = 0

        init(options: RAGChunkingOptions) { self.options = options }

        mutating func add(_ unit: Unit, bytes: [UInt8]) {
            if tokens + unit.tokens > options.chunkTokens, current.count > 0 {
                let onlyOverlap = chunks.last.map { $0.end == current.last?.end } ?? false
                if onlyOverlap {
                    // The carried overlap alone plus this unit does not fit: start afresh.
                    current = []
                    tokens = 0
                } else {
                    emit(bytes: bytes)
                    if tokens + unit.tokens > options.chunkTokens {
                        current = []
                        tokens = 0
                    }
                }
            }
            current.append(unit)
            tokens += unit.tokens
            // A paragraph end is a good place to stop once the chunk is mostly full.
            if unit.endsParagraph, tokens * 4 >= options.chunkTokens * 3 { emit(bytes: bytes) }
        }

        mutating func finish(bytes: [UInt8]) {
            if let last = current.last, chunks.last?.end != last.end { emit(bytes: bytes) }
        }

        private mutating func emit(bytes: [UInt8]) {
            guard let first = current.first, let last = current.last else { return }
            chunks.append(
                Chunk(
                    start: first.start,
                    end: last.end,
                    text: RAGChunker.string(bytes, first.start, last.end),
                    tokens: tokens
                )
            )
            // Carry whole trailing sentences worth at most `overlapTokens` into the next chunk.
            var carried: [Unit] = []
            var carriedTokens = 0
            for unit in current.dropFirst().reversed() {
                guard carriedTokens + unit.tokens <= options.overlapTokens else { break }
                carried.append(unit)
                carriedTokens += unit.tokens
            }
            current = carried.reversed()
            tokens = carriedTokens
        }
    }

    // MARK: Bytes

    fileprivate static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D || byte == 0x0C || byte == 0x0B
    }

    fileprivate static func string(_ bytes: [UInt8], _ start: Int, _ end: Int) -> String {
        String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
