import RunAnywhere
import Testing

@Suite("Diarization error rate")
struct DiarizationErrorRateTests {
    /// A segment of `speaker` from `start` to `end` seconds.
    static func turn(_ speaker: Int, _ start: Double, _ end: Double) -> SpeakerSegment {
        SpeakerSegment(speaker: speaker, start: start, end: end)
    }

    /// Whether two times agree to well under a frame.
    static func same(_ a: Double, _ b: Double) -> Bool {
        abs(a - b) < 1e-9
    }

    /// Three turns: 4 s, 3 s and 3 s, 8.5 s once the 0.25 s collars are taken off both ends of each.
    static let conversation = [turn(0, 0, 4), turn(1, 5, 8), turn(0, 9, 12)]

    @Test("A perfect diarization with other speaker numbers scores 0 and maps the numbers back")
    func permutedSpeakers() {
        let der = DiarizationErrorRate(
            reference: Self.conversation,
            hypothesis: [Self.turn(7, 0, 4), Self.turn(3, 5, 8), Self.turn(7, 9, 12)]
        )
        #expect(der.rate == 0)
        #expect(der.missed == 0)
        #expect(der.falseAlarm == 0)
        #expect(der.confusion == 0)
        #expect(Self.same(der.referenceSpeech, 8.5))
        #expect(der.mapping == [7: 0, 3: 1])
    }

    @Test("A turn given to the other speaker is confusion for its length less the collars")
    func confusion() {
        let der = DiarizationErrorRate(
            reference: Self.conversation,
            hypothesis: [Self.turn(0, 0, 4), Self.turn(1, 5, 8), Self.turn(1, 9, 12)]
        )
        #expect(Self.same(der.confusion, 2.5))
        #expect(der.missed == 0)
        #expect(der.falseAlarm == 0)
        #expect(der.mapping == [0: 0, 1: 1])
        #expect(Self.same(der.rate, 2.5 / 8.5))
    }

    @Test("A turn the diarization did not find is missed speech")
    func missedSpeech() {
        let der = DiarizationErrorRate(
            reference: [Self.turn(0, 0, 4), Self.turn(1, 5, 8)],
            hypothesis: [Self.turn(0, 0, 4)]
        )
        #expect(Self.same(der.missed, 2.5))
        #expect(der.falseAlarm == 0)
        #expect(der.confusion == 0)
        #expect(Self.same(der.referenceSpeech, 6))
        #expect(der.mapping == [0: 0])
    }

    @Test("Speech found where nobody talks is a false alarm, and its speaker is not mapped")
    func falseAlarm() {
        let der = DiarizationErrorRate(
            reference: [Self.turn(0, 0, 4)],
            hypothesis: [Self.turn(0, 0, 4), Self.turn(1, 6, 8)]
        )
        #expect(Self.same(der.falseAlarm, 2))
        #expect(der.missed == 0)
        #expect(der.confusion == 0)
        #expect(Self.same(der.rate, 2 / 3.5))
        #expect(der.mapping == [0: 0])
    }

    @Test("Boundaries off by less than the collar cost nothing, and everything without a collar")
    func collar() {
        let reference = [Self.turn(0, 0, 4)]
        let hypothesis = [Self.turn(0, 0.2, 3.9)]
        let lenient = DiarizationErrorRate(reference: reference, hypothesis: hypothesis)
        #expect(lenient.rate == 0)
        #expect(Self.same(lenient.referenceSpeech, 3.5))
        let strict = DiarizationErrorRate(reference: reference, hypothesis: hypothesis, collar: 0)
        #expect(Self.same(strict.missed, 0.3))
        #expect(Self.same(strict.referenceSpeech, 4))
        #expect(Self.same(strict.rate, 0.3 / 4))
    }

    @Test("Where two people talk at once each counts, and finding only one of them misses the other")
    func overlappingSpeech() {
        // 0 talks from 0 to 6 s, 1 from 4 to 10 s: two speakers from 4 to 6 s.
        let reference = [Self.turn(0, 0, 6), Self.turn(1, 4, 10)]
        let single = DiarizationErrorRate(reference: reference, hypothesis: [Self.turn(0, 0, 5), Self.turn(1, 5, 10)])
        // Scored: 0.25–3.75 one speaker, 4.25–5.75 two speakers of which one found, 6.25–9.75 one.
        #expect(Self.same(single.referenceSpeech, 3.5 + 2 * 1.5 + 3.5))
        #expect(Self.same(single.missed, 1.5))
        #expect(single.falseAlarm == 0)
        #expect(single.confusion == 0)
        #expect(Self.same(single.rate, 0.15))
        let both = DiarizationErrorRate(reference: reference, hypothesis: [Self.turn(5, 0, 6), Self.turn(2, 4, 10)])
        #expect(both.rate == 0)
        #expect(both.mapping == [5: 0, 2: 1])
    }

    @Test("The mapping is the best one-to-one pairing, not the greedy one")
    func optimalNotGreedy() {
        // Hypothesis 0 shares 5 s with reference 0 and 4 s with reference 1; hypothesis 1 shares
        // 4 s with reference 0. Pairing 0 with 0 first would leave 8 s of confusion, not 5.
        let der = DiarizationErrorRate(
            reference: [Self.turn(0, 0, 9), Self.turn(1, 20, 24)],
            hypothesis: [Self.turn(0, 0, 5), Self.turn(1, 5, 9), Self.turn(0, 20, 24)],
            collar: 0
        )
        #expect(der.mapping == [0: 1, 1: 0])
        #expect(Self.same(der.confusion, 5))
        #expect(Self.same(der.referenceSpeech, 13))
    }

    @Test("On random segments the mapping leaves the least confusion any pairing can")
    func exhaustiveComparison() {
        var state: UInt64 = 0x5EED
        func draw(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<30 {
            // Times in tenths of a second, so that no boundary falls on a frame center.
            let referenceSpeakers = 1 + draw(3)
            let hypothesisSpeakers = 1 + draw(4)
            let reference = (0...draw(6)).map { _ in
                let start = Double(draw(120)) / 10
                return Self.turn(draw(referenceSpeakers), start, start + Double(3 + draw(30)) / 10)
            }
            let hypothesis = (0...draw(6)).map { _ in
                let start = Double(draw(120)) / 10
                return Self.turn(draw(hypothesisSpeakers), start, start + Double(3 + draw(30)) / 10)
            }
            let der = DiarizationErrorRate(reference: reference, hypothesis: hypothesis, collar: 0)

            // Every 10 ms frame, its speakers on each side, by the frame's center.
            var frames: [(reference: Set<Int>, hypothesis: Set<Int>)] = []
            for frame in 0..<1600 {
                let center = (Double(frame) + 0.5) / 100
                let inReference = Set(reference.filter { $0.start <= center && center < $0.end }.map(\.speaker))
                let inHypothesis = Set(hypothesis.filter { $0.start <= center && center < $0.end }.map(\.speaker))
                if !inReference.isEmpty || !inHypothesis.isEmpty {
                    frames.append((reference: inReference, hypothesis: inHypothesis))
                }
            }
            let missed = frames.reduce(0) { $0 + max(0, $1.reference.count - $1.hypothesis.count) }
            let falseAlarm = frames.reduce(0) { $0 + max(0, $1.hypothesis.count - $1.reference.count) }
            #expect(Self.same(der.missed, Double(missed) / 100))
            #expect(Self.same(der.falseAlarm, Double(falseAlarm) / 100))

            // Every pairing of hypothesis speakers with distinct reference speakers (or none).
            let hypothesisNumbers = Array(Set(hypothesis.map(\.speaker))).sorted()
            let referenceNumbers = Array(Set(reference.map(\.speaker))).sorted()
            var least = Int.max
            func search(_ index: Int, _ mapping: [Int: Int]) {
                guard index < hypothesisNumbers.count else {
                    var confusion = 0
                    for frame in frames {
                        let correct = frame.hypothesis.filter { speaker in
                            guard let paired = mapping[speaker] else { return false }
                            return frame.reference.contains(paired)
                        }.count
                        confusion += min(frame.reference.count, frame.hypothesis.count) - correct
                    }
                    least = min(least, confusion)
                    return
                }
                search(index + 1, mapping)
                for speaker in referenceNumbers where !mapping.values.contains(speaker) {
                    var extended = mapping
                    extended[hypothesisNumbers[index]] = speaker
                    search(index + 1, extended)
                }
            }
            search(0, [:])
            #expect(Self.same(der.confusion, Double(least) / 100), "\(reference) against \(hypothesis)")
            #expect(Set(der.mapping.values).count == der.mapping.count)
        }
    }

    @Test("With no reference speech the rate is 0 for silence and 1 for anything found")
    func emptyReference() {
        #expect(DiarizationErrorRate(reference: [], hypothesis: []).rate == 0)
        let invented = DiarizationErrorRate(reference: [], hypothesis: [Self.turn(0, 1, 3)])
        #expect(invented.rate == 1)
        #expect(Self.same(invented.falseAlarm, 2))
        #expect(invented.mapping.isEmpty)
        let silent = DiarizationErrorRate(reference: [Self.turn(0, 0, 2)], hypothesis: [])
        #expect(Self.same(silent.rate, 1))
    }

    @Test("Empty, reversed and non-finite segments are ignored")
    func malformedSegments() {
        let der = DiarizationErrorRate(
            reference: Self.conversation,
            hypothesis: [
                Self.turn(7, 0, 4), Self.turn(3, 5, 8), Self.turn(7, 9, 12),
                Self.turn(4, 3, 3), Self.turn(4, 8, 6), Self.turn(4, .nan, 2), Self.turn(4, 1, .infinity),
            ]
        )
        #expect(der.rate == 0)
    }

    @Test("A whole set's rate weighs recordings by their reference speech")
    func combining() {
        let perfect = DiarizationErrorRate(
            reference: Self.conversation,
            hypothesis: [Self.turn(1, 0, 4), Self.turn(0, 5, 8), Self.turn(1, 9, 12)]
        )
        let halfMissed = DiarizationErrorRate(
            reference: [Self.turn(0, 0, 4), Self.turn(1, 5, 8)],
            hypothesis: [Self.turn(0, 0, 4)]
        )
        let set = DiarizationErrorRate(combining: [perfect, halfMissed])
        #expect(Self.same(set.referenceSpeech, 8.5 + 6))
        #expect(Self.same(set.missed, 2.5))
        #expect(Self.same(set.rate, 2.5 / 14.5))
        #expect(set.mapping.isEmpty)
    }
}
