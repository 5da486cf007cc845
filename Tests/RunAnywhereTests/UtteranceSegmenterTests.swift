import Foundation
import Testing

@_spi(Backend) @testable import RunAnywhere

/// The voice session's segmentation rules on synthetic chunks and VAD verdicts.
@Suite("Utterance segmentation")
struct UtteranceSegmenterTests {
    static let chunk = 0.032

    static func settings(partials: Bool = false, adaptive: Bool = true) -> UtteranceSegmenter.Settings {
        var configuration = VoiceAgentConfiguration(sttModelId: "s", llmModelId: "l")
        configuration.partialTranscripts = partials
        configuration.endOfTurn.adaptive = adaptive
        return UtteranceSegmenter.Settings(configuration)
    }

    /// A chunk whose samples all hold `marker`, so where a slice came from can be read back.
    static func audio(_ marker: Float) -> PCMAudio {
        PCMAudio(samples: [Float](repeating: marker, count: Int(chunk * 16_000)), sampleRate: 16_000)
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
        partialInFlight: Bool = false,
        transcript: String? = nil
    ) -> [UtteranceSegmenter.Action] {
        segmenter.feed(
            audio(Float(index)),
            vad: verdict(probability, events),
            partialInFlight: partialInFlight,
            transcript: transcript
        )
    }

    static func endsTurn(_ actions: [UtteranceSegmenter.Action]) -> Bool {
        actions.contains { if case .endOfTurn = $0 { true } else { false } }
    }

    @Test("An utterance starts a pre-roll before the VAD's speech start and ends 0.2 s after the speech")
    func preRollAndEndOfTurn() throws {
        var segmenter = UtteranceSegmenter(settings: Self.settings(adaptive: false))
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

    @Test("A pause starts a speculation, speech resuming cancels it, and the end uses one from its own silence")
    func speculation() {
        var segmenter = UtteranceSegmenter(settings: Self.settings())
        _ = Self.feed(&segmenter, 0, 0.9, [SpeechActivityEvent(kind: .speechStarted, time: 0)])
        let pause = Self.feed(&segmenter, 1, 0.1)
        #expect(pause.contains { if case .speculate = $0 { true } else { false } })
        #expect(
            !Self.feed(&segmenter, 2, 0.1).contains { if case .speculate = $0 { true } else { false } },
            "once per pause"
        )
        #expect(Self.feed(&segmenter, 3, 0.9) == [.cancelSpeculation], "speech resumed: the speculation is stale")
        #expect(!Self.feed(&segmenter, 4, 0.9).contains(.cancelSpeculation), "nothing left to cancel")

        // The speculation started at the pause's first chunk (0.064 s) is of the utterance that
        // ends there: the VAD reports the end 0.3 s into the silence, and with a transcript
        // without punctuation the turn ends after the VAD's own 0.5 s.
        var ending = UtteranceSegmenter(settings: Self.settings())
        _ = Self.feed(&ending, 0, 0.9, [SpeechActivityEvent(kind: .speechStarted, time: 0)])
        _ = Self.feed(&ending, 1, 0.9)
        #expect(Self.feed(&ending, 2, 0.1).contains { if case .speculate = $0 { true } else { false } })
        for index in 3..<12 { #expect(Self.feed(&ending, index, 0.1).isEmpty) }
        let heard = "turn on the lights"  // no punctuation: the VAD's own 0.5 s
        let reported = [SpeechActivityEvent(kind: .speechEnded, time: 2 * Self.chunk)]
        #expect(Self.feed(&ending, 12, 0.1, reported, transcript: heard).isEmpty)
        for index in 13..<17 { #expect(Self.feed(&ending, index, 0.1, transcript: heard).isEmpty) }
        let end = Self.feed(&ending, 17, 0.1, transcript: heard)  // 0.576 − 0.064 = 0.512 s of silence
        #expect(end.first == .speechEnded(at: 2 * Self.chunk))
        #expect(end.contains { if case .endOfTurn(_, _, true) = $0 { true } else { false } })
        #expect(!end.contains(.cancelSpeculation))

        // One that started more than 50 ms before the silence the VAD ended the turn on is
        // stale: cancelled, and the turn starts anew.
        var stale = UtteranceSegmenter(settings: Self.settings())
        _ = Self.feed(&stale, 0, 0.9, [SpeechActivityEvent(kind: .speechStarted, time: 0)])
        for index in 1...20 { _ = Self.feed(&stale, index, 0.1) }
        let late = Self.feed(
            &stale,
            21,
            0.1,
            [SpeechActivityEvent(kind: .speechEnded, time: 4 * Self.chunk)],
            transcript: "turn on the lights"
        )
        #expect(late.contains(.cancelSpeculation))
        #expect(late.contains { if case .endOfTurn(_, _, false) = $0 { true } else { false } })
    }

    /// Feeds an utterance, then silence with `transcript` as the speculation's transcript;
    /// returns the seconds of silence after which the turn ended.
    static func silenceBeforeTheTurnEnds(transcript: String?, adaptive: Bool = true) -> Double? {
        var segmenter = UtteranceSegmenter(settings: settings(adaptive: adaptive))
        _ = feed(&segmenter, 0, 0.9, [SpeechActivityEvent(kind: .speechStarted, time: 0)])
        for index in 1..<10 { _ = feed(&segmenter, index, 0.9) }
        // Speech ends at chunk 10; the VAD, set to the shortest wait (0.3 s), reports it at chunk 19.
        for index in 10..<100 {
            let events =
                index == 19 ? [SpeechActivityEvent(kind: .speechEnded, time: 10 * chunk)] : [SpeechActivityEvent]()
            if endsTurn(feed(&segmenter, index, 0.1, events, transcript: transcript)) {
                return Double(index + 1 - 10) * chunk
            }
        }
        return nil
    }

    @Test(
        "The turn ends 0.3 s after a finished sentence, 1 s after a trailing 'and' or before any transcript, else 0.5 s"
    )
    func adaptiveEndOfTurn() throws {
        let question = try #require(Self.silenceBeforeTheTurnEnds(transcript: "What time is it?"))
        #expect(question >= 0.3 && question < 0.34, "\(question)")
        let trailing = try #require(Self.silenceBeforeTheTurnEnds(transcript: "I went to the shop and"))
        #expect(trailing >= 1.0 && trailing < 1.04, "\(trailing)")
        let comma = try #require(Self.silenceBeforeTheTurnEnds(transcript: "And so, my fellow Americans,"))
        #expect(comma >= 1.0 && comma < 1.04, "\(comma)")
        let unpunctuated = try #require(Self.silenceBeforeTheTurnEnds(transcript: "turn on the lights"))
        #expect(unpunctuated >= 0.5 && unpunctuated < 0.54, "\(unpunctuated)")
        let notYet = try #require(Self.silenceBeforeTheTurnEnds(transcript: nil))
        #expect(notYet >= 1.0 && notYet < 1.04, "no transcript yet: wait for one, \(notYet)")
        let fixed = try #require(Self.silenceBeforeTheTurnEnds(transcript: "What time is it?", adaptive: false))
        #expect(fixed >= 0.5 && fixed < 0.54, "not adaptive: always the VAD's wait, \(fixed)")
    }

    @Test("Speech resuming while the end of turn is pending continues the same utterance")
    func pauseContinuesTheUtterance() throws {
        var segmenter = UtteranceSegmenter(settings: Self.settings())
        _ = Self.feed(&segmenter, 0, 0.9, [SpeechActivityEvent(kind: .speechStarted, time: 0)])
        for index in 1..<10 { _ = Self.feed(&segmenter, index, 0.9) }
        for index in 10..<19 { _ = Self.feed(&segmenter, index, 0.1, transcript: "I went to the shop and") }
        let reported = [SpeechActivityEvent(kind: .speechEnded, time: 10 * Self.chunk)]
        #expect(!Self.endsTurn(Self.feed(&segmenter, 19, 0.1, reported, transcript: "I went to the shop and")))
        for index in 20..<30 {
            #expect(!Self.endsTurn(Self.feed(&segmenter, index, 0.1, transcript: "I went to the shop and")))
        }
        // The speaker goes on after 0.64 s: no new utterance, the speculation is cancelled.
        let resumed = Self.feed(&segmenter, 30, 0.9)
        #expect(resumed == [.cancelSpeculation])
        for index in 31..<36 { _ = Self.feed(&segmenter, index, 0.9) }
        let restarted = Self.feed(
            &segmenter,
            36,
            0.9,
            [SpeechActivityEvent(kind: .speechStarted, time: 30 * Self.chunk)]
        )
        #expect(!restarted.contains { if case .speechStarted = $0 { true } else { false } })
        #expect(segmenter.isInUtterance)
        for index in 37..<45 { _ = Self.feed(&segmenter, index, 0.9) }
        var ended: [UtteranceSegmenter.Action] = []
        for index in 45..<80 where ended.isEmpty {
            let events = index == 54 ? [SpeechActivityEvent(kind: .speechEnded, time: 45 * Self.chunk)] : []
            let actions = Self.feed(&segmenter, index, 0.1, events, transcript: "I went to the shop and bought bread.")
            if Self.endsTurn(actions) { ended = actions }
        }
        guard case .endOfTurn(let audio, let endTime, true) = try #require(ended.last) else {
            Issue.record("no end of turn with the speculation in \(ended)")
            return
        }
        #expect(endTime == 45 * Self.chunk)
        // One utterance from the first chunk to 0.2 s after the second stretch of speech.
        #expect(audio.samples.first == 0)
        #expect(audio.samples.last == 51)
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
