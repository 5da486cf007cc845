import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Generation text processing")
struct GenerationTextProcessorTests {
    /// Feeds `pieces` and returns (streamed answer, streamed thinking, processor).
    private func run(
        _ pieces: [String],
        stops: [String] = [],
        tags: ReasoningTags = .think,
        startsInReasoning: Bool = false
    ) -> (String, String, GenerationTextProcessor) {
        var processor = GenerationTextProcessor(stopSequences: stops, tags: tags, startsInReasoning: startsInReasoning)
        var answer = ""
        var thinking = ""
        for piece in pieces {
            for segment in processor.consume(Array(piece.utf8)) {
                if segment.isThinking { thinking += segment.text } else { answer += segment.text }
            }
        }
        for segment in processor.finish() {
            if segment.isThinking { thinking += segment.text } else { answer += segment.text }
        }
        return (answer, thinking, processor)
    }

    @Test("Plain text passes through unchanged")
    func plainText() {
        let (answer, _, processor) = run(["Hello", ", ", "world", "!"])
        #expect(answer == "Hello, world!")
        #expect(processor.answer == answer)
        #expect(!processor.stopSequenceHit)
    }

    @Test("A stop sequence split across tokens stops the text before it")
    func stopAcrossTokens() {
        let (answer, _, processor) = run(["one, two", ", thr", "ee, fo", "ur"], stops: [", three"])
        #expect(answer == "one, two")
        #expect(processor.stopSequenceHit)
    }

    @Test("Text that only looks like the start of a stop sequence is released")
    func falseStopPrefix() {
        let (answer, _, processor) = run(["a <", "en", "d of it"], stops: ["<end>"])
        #expect(answer == "a <end of it")
        #expect(!processor.stopSequenceHit)
    }

    @Test("An empty stop sequence never stops the text")
    func emptyStopSequence() {
        let (answer, _, processor) = run(["plain ", "text"], stops: ["", "<end>"])
        #expect(answer == "plain text")
        #expect(!processor.stopSequenceHit)
    }

    @Test("A think block split across tokens goes to thinking, not the answer")
    func thinkingSplit() {
        let (answer, thinking, processor) = run(["<thi", "nk>let me", " see</th", "ink>\n\nThe answer", " is 4."])
        #expect(answer == "The answer is 4.")
        #expect(thinking == "let me see")
        #expect(processor.sawThinking)
        #expect(processor.answer == answer)
    }

    @Test("A template's own reasoning tags, split across tokens, separate reasoning; the raw text keeps them")
    func ownTags() {
        let mistral = ReasoningTags(open: "[THINK]", close: ["[/THINK]"])
        let pieces = ["[TH", "INK]Four, since", " 2+2=4.[/", "THINK]", "It is 4."]
        let (answer, thinking, processor) = run(pieces, tags: mistral)
        #expect(answer == "It is 4.")
        #expect(thinking == "Four, since 2+2=4.")
        #expect(processor.raw == pieces.joined())
        // `<think>` means nothing to a model whose tags are others.
        let (plain, none, _) = run(["<think>x</think>"], tags: mistral)
        #expect(plain == "<think>x</think>" && none.isEmpty)
    }

    @Test("A prompt that opens the reasoning block starts the output inside it; any closing tag ends it")
    func openedByThePrompt() {
        let tags = ReasoningTags(open: "<think>", close: ["\n</think>", "</think>"])
        #expect(tags.opensBlock("<|im_start|>assistant\n<think>\n"))
        #expect(!tags.opensBlock("<|im_start|>assistant\n<think>\n\n</think>\n\n"))
        #expect(!tags.opensBlock("<|im_start|>assistant\n"))
        let (answer, thinking, processor) = run(
            ["Two and two", " make four.</think>", "\n\nFour."],
            tags: tags,
            startsInReasoning: true
        )
        #expect(thinking == "Two and two make four.")
        #expect(answer == "Four.")
        #expect(processor.sawThinking)
        // Tags that cannot close fall back to `<think>`'s.
        #expect(ReasoningTags(open: "[THINK]", close: [""]) == .think)
    }

    @Test("A multi-byte character split across tokens is never torn")
    func utf8Split() {
        let bytes = Array("héllo 🌍".utf8)
        var processor = GenerationTextProcessor(stopSequences: [])
        var streamed = ""
        for byte in bytes {  // worst case: one byte per token
            streamed += processor.consume([byte]).map(\.text).joined()
        }
        streamed += processor.finish().map(\.text).joined()
        #expect(streamed == "héllo 🌍")
        #expect(!streamed.contains("\u{FFFD}"))
    }

    @Test("The complete UTF-8 prefix stops before an unfinished character")
    func utf8Prefix() {
        let euro = Array("€".utf8)  // 3 bytes
        #expect(GenerationTextProcessor.completeUTF8Prefix(Array("ab".utf8) + euro.prefix(2)) == 2)
        #expect(GenerationTextProcessor.completeUTF8Prefix(Array("ab".utf8) + euro) == 5)
        #expect(GenerationTextProcessor.completeUTF8Prefix([]) == 0)
    }
}
