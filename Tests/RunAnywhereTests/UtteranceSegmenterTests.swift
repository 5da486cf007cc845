import Foundation
import Testing

@_spi(Backend) @testable import RunAnywhere

/// The voice session's segmentation rules on synthetic chunks and VAD verdicts.
@Suite("Utterance segmentation")
struct UtteranceSegmenterTests {
    static let chunk = 0.032

    static func settings(partials: Bool = false) -> UtteranceSegmenter.Settings {
        var configuration = VoiceAgentConfiguration(sttModelId: "s", llmModelId: "l")
        configuration.partialTranscripts = partials
        return UtteranceSegmenter.Settings(configuration)
    }

    /// A chunk whose samples all hold `marker`, so where a slice came from can be read back.
    static func audio(_ marker: Float) -> AudioBuffer {
        AudioBuffer(samples: [Float](repeating: marker, count: Int(chunk * 16_000)), sampleRate: 16_000)
    }

    static func verdict(_ probability: Float, _ events: [SpeechActivityEvent] = []) -> VADResult {
        VADResult(isSpeech: probability >= 0.5, probability: probability, energyDecibels: 0, events: events)
    }

    /// Feeds chunk `index` (marker = index) with a probability and events; returns the actions.
    static func feed(
        _ segmenter: inout UtteranceSegmenter,
        _ index: Int,
        _ probability: Float,
        _ events: [SpeechActivityEvent] = [],
        partialInFlight: Bool = false
    ) -> [UtteranceSegmenter.Action] {
        segmenter.feed(audio(Float(index)), vad: verdict(probability, events), partialInFlight: partialInFlight)
    }

    @Test("An utterance starts a pre-roll before the VAD's speech start and ends 0.2 s after the speech")
    func preRollAndEndOfTurn() throws {
        var segmenter = UtteranceSegmenter(settings: Self.settings())
        for index in 0..<40 { _ = Self.feed(&segmenter, index, 0) }  // 1.28 s of silence
        // Speech from chunk 40 (1.28 s); the VAD confirms it at chunk 46 with the start stamped at 1.28 s.
        for index in 40..<46 { _ = Self.feed(&segmenter, index, 0.9) }
        let start = SpeechActivityEvent(kind: .speechStarted, time: 40 * Self.chunk)
        let started = Self.feed(&segmenter, 46, 0.9, [start])
        #expect(started.contains(.speechStarted(at: 40 * Self.chunk)))
        #expect(segmenter.isInUtterance)
        for index in 47..<60 { _ = Self.feed(&segmenter, index, 0.9) }
        for index in 60..<75 { _ = Self.feed(&segmenter, index, 0) }
        let end = SpeechActivityEvent(kind: .speechEnded, time: 60 * Self.chunk)
        let ended = Self.feed(&segmenter, 75, 0, [end])
        #expect(ended.first == .speechEnded(at: 60 * Self.chunk))
        guard case .endOfTurn(let utterance, let endTime, _) = try #require(ended.last) else {
            Issue.record("no end of turn in \(ended)")
            return
        }
        #expect(endTime == 60 * Self.chunk)
        // Pre-roll of 0.3 s: the utterance starts in chunk 30 (0.96 s = 1.28 s − 0.32 s rounds to chunk 30's span).
        let firstChunk = try #require(utterance.samples.first)
        #expect(firstChunk >= 30 && firstChunk <= 31, "starts \(firstChunk) chunks in")
        // It ends 0.2 s (6.25 chunks) after the speech ended at chunk 60.
        let lastChunk = try #require(utterance.samples.last)
        #expect(lastChunk == 66, "ends in chunk \(lastChunk)")
        #expect(!segmenter.isInUtterance)
    }

    @Test(
        "A pause asks for an early transcription, speech resuming cancels it, and the end reuses one from its own silence"
    )
    func earlyTranscription() {
        var segmenter = UtteranceSegmenter(settings: Self.settings())
        _ = Self.feed(&segmenter, 0, 0.9, [SpeechActivityEvent(kind: .speechStarted, time: 0)])
        let pause = Self.feed(&segmenter, 1, 0.1)
        #expect(pause.contains { if case .transcribeEarly = $0 { true } else { false } })
        #expect(
            !Self.feed(&segmenter, 2, 0.1).contains { if case .transcribeEarly = $0 { true } else { false } },
            "once per pause"
        )
        #expect(Self.feed(&segmenter, 3, 0.9) == [.cancelEarlyTranscription], "speech resumed: the transcript is stale")
        #expect(!Self.feed(&segmenter, 4, 0.9).contains(.cancelEarlyTranscription), "nothing left to cancel")

        // The transcription started at the pause's first chunk (0.064 s) is of the utterance that ends there.
        var ending = UtteranceSegmenter(settings: Self.settings())
        _ = Self.feed(&ending, 0, 0.9, [SpeechActivityEvent(kind: .speechStarted, time: 0)])
        _ = Self.feed(&ending, 1, 0.9)
        _ = Self.feed(&ending, 2, 0.1)
        let end = Self.feed(&ending, 3, 0.1, [SpeechActivityEvent(kind: .speechEnded, time: 2 * Self.chunk)])
        #expect(end.contains { if case .endOfTurn(_, _, true) = $0 { true } else { false } })
        #expect(!end.contains(.cancelEarlyTranscription))

        // One that started more than 50 ms before the silence the VAD ended the turn on is
        // stale: cancelled, and the turn transcribes anew.
        var stale = UtteranceSegmenter(settings: Self.settings())
        _ = Self.feed(&stale, 0, 0.9, [SpeechActivityEvent(kind: .speechStarted, time: 0)])
        for index in 1...3 { _ = Self.feed(&stale, index, 0.1) }
        let late = Self.feed(&stale, 4, 0.1, [SpeechActivityEvent(kind: .speechEnded, time: 4 * Self.chunk)])
        #expect(late.contains(.cancelEarlyTranscription))
        #expect(late.contains { if case .endOfTurn(_, _, false) = $0 { true } else { false } })
    }

    @Test("Barge-in fires after 64 ms of voiced audio, stamped where that speech began")
    func bargeIn() throws {
        var segmenter = UtteranceSegmenter(settings: Self.settings())
        for index in 0..<10 { _ = Self.feed(&segmenter, index, 0) }
        #expect(Self.feed(&segmenter, 10, 0.8) == [])
        let actions = Self.feed(&segmenter, 11, 0.8)
        guard case .bargeIn(let time) = try #require(actions.first), actions.count == 1 else {
            Issue.record("expected one barge-in, got \(actions)")
            return
        }
        #expect(abs(time - 10 * Self.chunk) < 1e-9)
        #expect(Self.feed(&segmenter, 12, 0.2) == [], "a dip resets the run")
        #expect(Self.feed(&segmenter, 13, 0.8) == [])
    }

    @Test("Partials come once per second of speech and never while one is in flight")
    func partials() {
        var segmenter = UtteranceSegmenter(settings: Self.settings(partials: true))
        _ = Self.feed(&segmenter, 0, 0.9, [SpeechActivityEvent(kind: .speechStarted, time: 0)])
        var asked: [Int] = []
        for index in 1..<100 {
            let inFlight = index >= 90 && index < 97
            let actions = Self.feed(&segmenter, index, 0.9, partialInFlight: inFlight)
            if actions.contains(where: { if case .transcribePartial = $0 { true } else { false } }) {
                asked.append(index)
            }
        }
        // One per 1.0 s of new speech (31.25 chunks); the one due at chunk 95 waits for the partial in flight.
        #expect(asked == [31, 63, 97], "\(asked)")
        var off = UtteranceSegmenter(settings: Self.settings(partials: false))
        _ = Self.feed(&off, 0, 0.9, [SpeechActivityEvent(kind: .speechStarted, time: 0)])
        for index in 1..<100 {
            #expect(!Self.feed(&off, index, 0.9).contains { if case .transcribePartial = $0 { true } else { false } })
        }
    }

    @Test("When the input ends mid-utterance, the utterance is a turn of its own")
    func finishClosesTheUtterance() {
        var segmenter = UtteranceSegmenter(settings: Self.settings())
        #expect(segmenter.finish(vad: nil) == [])
        _ = Self.feed(&segmenter, 0, 0.9, [SpeechActivityEvent(kind: .speechStarted, time: 0)])
        _ = Self.feed(&segmenter, 1, 0.9)
        let closing = segmenter.finish(vad: SpeechActivityEvent(kind: .speechEnded, time: 2 * Self.chunk))
        #expect(closing.first == .speechEnded(at: 2 * Self.chunk))
        guard case .endOfTurn(let audio, _, false) = closing.last else {
            Issue.record("no end of turn in \(closing)")
            return
        }
        #expect(abs(audio.duration - 2 * Self.chunk) < 0.001)
    }
}
