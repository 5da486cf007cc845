@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A source an answer cites: the `[n]` in the text and the chunk it stands for.
public struct RAGCitation: Sendable, Equatable, Codable {
    /// The number in square brackets.
    public var number: Int
    /// The document cited.
    public var documentId: String
    /// The chunk cited.
    public var chunkId: Int64
    /// The chunk's text.
    public var text: String

    /// Creates a citation.
    public init(number: Int, documentId: String, chunkId: Int64, text: String) {
        self.number = number
        self.documentId = documentId
        self.chunkId = chunkId
        self.text = text
    }
}

/// An answer grounded in an index's documents.
public struct RAGAnswer: Sendable, Equatable {
    /// The model's answer, with `[n]` markers.
    public var text: String
    /// The sources the model was shown, numbered from 1 in this order.
    public var sources: [RAGSearchResult]
    /// The sources the answer cites, in the order they are first cited. Numbers that match
    /// no source are left out.
    public var citations: [RAGCitation]
    /// The generation behind the answer.
    public var generation: LLMGenerationResult
    /// Time spent retrieving, in milliseconds.
    public var retrievalMs: Double

    /// Creates an answer.
    public init(
        text: String,
        sources: [RAGSearchResult],
        citations: [RAGCitation],
        generation: LLMGenerationResult,
        retrievalMs: Double
    ) {
        self.text = text
        self.sources = sources
        self.citations = citations
        self.generation = generation
        self.retrievalMs = retrievalMs
    }

    /// The citations `[n]` in `text` that name one of `sources`, first citation first.
    static func citations(in text: String, sources: [RAGSearchResult]) -> [RAGCitation] {
        var seen: Set<Int> = []
        var found: [RAGCitation] = []
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            guard scalars[index] == "[" else {
                index += 1
                continue
            }
            // A group such as [1], [2, 3] or [1][2].
            var end = index + 1
            while end < scalars.count, scalars[end] != "]", end - index < 32 { end += 1 }
            guard end < scalars.count, scalars[end] == "]" else {
                index += 1
                continue
            }
            let inside = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
            let numbers = inside.split(whereSeparator: { $0 == "," || $0 == " " }).compactMap { Int($0) }
            for number in numbers where number >= 1 && number <= sources.count && !seen.contains(number) {
                seen.insert(number)
                let source = sources[number - 1]
                found.append(
                    RAGCitation(
                        number: number,
                        documentId: source.documentId,
                        chunkId: source.chunkId,
                        text: source.text
                    )
                )
            }
            index = end + 1
        }
        return found
    }
}

/// What ``RAGIndex/queryStream(_:options:)`` delivers.
public enum RAGQueryEvent: Sendable, Equatable {
    /// The sources were found; the answer follows.
    case sources([RAGSearchResult])
    /// A piece of the answer.
    case token(String)
    /// The answer is complete; always the last event of a stream that did not fail.
    case completed(RAGAnswer)
}

/// The original SDK's name for the result of a RAG query: ``RAGAnswer``.
public typealias RAGResult = RAGAnswer

extension RAGAnswer {
    /// Retrieval and generation together, in seconds (the original SDK's total).
    public var totalTime: TimeInterval { (retrievalMs + generation.totalMs) / 1_000 }
}
