import Testing

@testable import RunAnywhere

@Suite("Word error rate")
struct WordErrorRateTests {
    @Test("Case, punctuation, numbers in digits and titles do not count as errors")
    func normalization() {
        #expect(WordErrorRate.words("Go forward 10 meters.") == ["go", "forward", "ten", "meters"])
        #expect(
            WordErrorRate.words("Mr. John Dashwood, ill-disposed") == ["mister", "john", "dashwood", "ill", "disposed"]
        )
        #expect(WordErrorRate.words("At 7 A.M. on the 21st") == ["at", "seven", "am", "on", "the", "twenty", "first"])
        #expect(
            WordErrorRate.words("1,250 people don't \"know\"") == [
                "one", "thousand", "two", "hundred", "fifty", "people", "don't", "know",
            ]
        )
        #expect(
            WordErrorRate.words("the 12th and 40th, 1000000") == [
                "the", "twelfth", "and", "fortieth", "one", "million",
            ]
        )
        #expect(WordErrorRate(reference: "Front, center.", hypothesis: "front center").rate == 0)
    }

    @Test("Substitutions, deletions and insertions are counted by the alignment with the fewest edits")
    func counts() {
        let wer = WordErrorRate(reference: "turn on the kitchen lights", hypothesis: "turn the kitchen light on please")
        #expect(wer.referenceWords == 5)
        #expect(wer.errors == 4)
        #expect(wer.deletions == 1)
        #expect(wer.substitutions == 1)
        #expect(wer.insertions == 2)
        #expect(abs(wer.rate - 0.8) < 1e-9)
        #expect(WordErrorRate(reference: "", hypothesis: "you").rate == 1)
        #expect(WordErrorRate(reference: "", hypothesis: "").rate == 0)
        #expect(WordErrorRate(reference: "a b c", hypothesis: "").deletions == 3)
    }

    @Test("A whole set's rate weighs clips by their words")
    func combining() {
        let set = WordErrorRate(combining: [
            WordErrorRate(reference: "one two three four", hypothesis: "one two three four"),
            WordErrorRate(reference: "five", hypothesis: "six"),
        ])
        #expect(set.referenceWords == 5)
        #expect(abs(set.rate - 0.2) < 1e-9)
    }

    @Test("A looped transcript is recognised by a repeated phrase, a thrice-said word or a run of bare marks")
    func repetition() {
        #expect(TranscriptRepetition.repeatsPhrase("Front, right. Front, right."))
        #expect(TranscriptRepetition.repeatsPhrase("5 5 5 5"))
        #expect(TranscriptRepetition.repeatsPhrase("\" \" \" \" \""))
        #expect(TranscriptRepetition.repeatsPhrase("Okay. ... - - -"))
        #expect(!TranscriptRepetition.repeatsPhrase("Go forward 10 meters."))
        #expect(!TranscriptRepetition.repeatsPhrase("Well, well. That is that."))
        #expect(!TranscriptRepetition.repeatsPhrase("Wait... - okay."))
        #expect(!TranscriptRepetition.repeatsPhrase(""))
    }
}
