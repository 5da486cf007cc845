#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How far a diarization is from who really spoke when: the diarization error rate, with its
/// missed speech, false alarm and speaker confusion, in seconds.
///
/// Both sides are laid on a grid of 10 ms frames (``frameDuration``); a frame belongs to a
/// segment when its center lies in it. At each frame the reference may have several speakers
/// (people talking over each other) and so may the hypothesis, and each reference speaker
/// counts: a frame with two reference speakers and one hypothesis speaker has one speaker's
/// worth of missed speech. Hypothesis speakers are paired with reference speakers one to one
/// so that they share the most time (the Hungarian algorithm), since the numbers a diarizer
/// gives its speakers are arbitrary; ``mapping`` says which pairing was used.
///
/// As in NIST's md-eval, frames within `collar` seconds either side of a reference
/// segment's start or end are not scored: where exactly a turn starts is a matter of
/// judgment, and a few hundred milliseconds there should not decide the score.
/// (pyannote.metrics' `collar` is the width of the whole zone: its 0.5 is this 0.25.)
///
/// ```swift
/// let truth = [SpeakerSegment(speaker: 0, start: 0, end: 4), SpeakerSegment(speaker: 1, start: 5, end: 8)]
/// let found = try await RunAnywhere.diarize(audio)
/// let der = DiarizationErrorRate(reference: truth, hypothesis: found)
/// print(der.rate, der.mapping)  // 0.0 and [1: 0, 0: 1] when it found the turns, numbered the other way
/// ```
///
/// Over a test set, add the seconds of every recording with ``init(combining:)``: the rate of
/// the whole set weighs each recording by its reference speech.
public struct DiarizationErrorRate: Sendable, Codable, Equatable {
    /// Seconds of reference speech with no hypothesis speaker to match it: at each scored frame,
    /// the reference speakers in excess of the hypothesis speakers.
    public var missed: TimeInterval
    /// Seconds of hypothesis speech with no reference speaker under it: at each scored frame,
    /// the hypothesis speakers in excess of the reference speakers.
    public var falseAlarm: TimeInterval
    /// Seconds of speech given to the wrong speaker: at each scored frame, the speakers present
    /// on both sides less those the mapping pairs correctly.
    public var confusion: TimeInterval
    /// Seconds of scored reference speech, each speaker counted (two people at once count twice).
    public var referenceSpeech: TimeInterval
    /// The pairing used: hypothesis speaker → reference speaker. Hypothesis speakers that share no
    /// scored time with the reference speaker they would be paired with are left out; a combined
    /// result (``init(combining:)``) has none, since each recording has its own.
    public var mapping: [Int: Int]

    /// The length of a frame of the scoring grid, in seconds.
    public static let frameDuration: TimeInterval = 0.01

    /// Missed speech, false alarm and confusion together, in seconds.
    public var errors: TimeInterval { missed + falseAlarm + confusion }

    /// Errors over reference speech. With no reference speech it is 0 when the hypothesis found
    /// none either and 1 when it found some (as pyannote.metrics does): anything is all wrong.
    public var rate: Double {
        if referenceSpeech > 0 { return errors / referenceSpeech }
        return errors > 0 ? 1 : 0
    }

    /// Compares a diarization with the reference.
    ///
    /// Segments whose end is not after their start, or with a time that is not finite, are
    /// ignored; overlapping segments of one speaker on the same side count once.
    /// - Parameters:
    ///   - reference: Who really spoke when.
    ///   - hypothesis: What a diarizer found.
    ///   - collar: Seconds not scored either side of each reference segment boundary, rounded
    ///     to whole frames (0 scores everything).
    public init(reference: [SpeakerSegment], hypothesis: [SpeakerSegment], collar: TimeInterval = 0.25) {
        // Bounded like segment times, so that a huge collar cannot overflow the frame count.
        let reach = collar.isFinite ? min(max(0, collar), 1e6) : 0
        let referenceRanges = DiarizationFrames.bySpeaker(reference)
        let hypothesisRanges = DiarizationFrames.bySpeaker(hypothesis)

        // The no-score zones go around the merged turns of each speaker, so that two touching
        // segments of one speaker do not hide the time between them.
        var collars: [Range<Int>] = []
        let collarFrames = Int((reach / Self.frameDuration).rounded())
        if collarFrames > 0 {
            for ranges in referenceRanges.values {
                for range in ranges {
                    // Whole frames either side of the boundary as the grid has it.
                    collars.append((range.lowerBound - collarFrames)..<(range.lowerBound + collarFrames))
                    collars.append((range.upperBound - collarFrames)..<(range.upperBound + collarFrames))
                }
            }
        }

        let stretches = DiarizationStretch.sweep(
            reference: referenceRanges,
            hypothesis: hypothesisRanges,
            collars: collars
        )
        let referenceSpeakers = referenceRanges.keys.sorted()
        let hypothesisSpeakers = hypothesisRanges.keys.sorted()

        // Frames each hypothesis speaker shares with each reference speaker, scored frames only:
        // the pairing that shares the most leaves the least confusion, as missed speech and false
        // alarm do not depend on it.
        var shared = [[Int]](
            repeating: [Int](repeating: 0, count: referenceSpeakers.count),
            count: hypothesisSpeakers.count
        )
        var referenceIndex: [Int: Int] = [:]
        for (index, speaker) in referenceSpeakers.enumerated() {
            referenceIndex[speaker] = index
        }
        var hypothesisIndex: [Int: Int] = [:]
        for (index, speaker) in hypothesisSpeakers.enumerated() {
            hypothesisIndex[speaker] = index
        }
        for stretch in stretches where stretch.scored {
            for h in stretch.hypothesis {
                guard let row = hypothesisIndex[h] else { continue }
                for r in stretch.reference {
                    guard let column = referenceIndex[r] else { continue }
                    shared[row][column] += stretch.frames
                }
            }
        }

        var mapping: [Int: Int] = [:]
        for (row, column) in SpeakerAssignment.maximizing(shared) where shared[row][column] > 0 {
            mapping[hypothesisSpeakers[row]] = referenceSpeakers[column]
        }

        var missedFrames = 0
        var falseAlarmFrames = 0
        var confusionFrames = 0
        var referenceFrames = 0
        for stretch in stretches where stretch.scored {
            let inReference = stretch.reference.count
            let inHypothesis = stretch.hypothesis.count
            let correct = stretch.hypothesis.filter { h in
                guard let paired = mapping[h] else { return false }
                return stretch.reference.contains(paired)
            }.count
            missedFrames += stretch.frames * max(0, inReference - inHypothesis)
            falseAlarmFrames += stretch.frames * max(0, inHypothesis - inReference)
            confusionFrames += stretch.frames * (min(inReference, inHypothesis) - correct)
            referenceFrames += stretch.frames * inReference
        }
        missed = Double(missedFrames) * Self.frameDuration
        falseAlarm = Double(falseAlarmFrames) * Self.frameDuration
        confusion = Double(confusionFrames) * Self.frameDuration
        referenceSpeech = Double(referenceFrames) * Self.frameDuration
        self.mapping = mapping
    }

    /// The seconds of several comparisons added up: the error rate of a whole test set. The
    /// result has no ``mapping``.
    public init(combining results: some Sequence<DiarizationErrorRate>) {
        missed = 0
        falseAlarm = 0
        confusion = 0
        referenceSpeech = 0
        mapping = [:]
        for result in results {
            missed += result.missed
            falseAlarm += result.falseAlarm
            confusion += result.confusion
            referenceSpeech += result.referenceSpeech
        }
    }
}

/// Segments as ranges of frame indices of ``DiarizationErrorRate``'s grid.
private enum DiarizationFrames {
    /// The frames whose center lies in [start, end): frame `i` spans `i` to `i + 1` frame
    /// lengths, so its center is at `(i + 0.5)` of them.
    static func frames(from start: TimeInterval, to end: TimeInterval) -> Range<Int> {
        let first = index(start)
        let last = index(end)
        return first..<max(first, last)
    }

    /// The first frame whose center is at or after `time`.
    private static func index(_ time: TimeInterval) -> Int {
        // Clamped so that absurd times cannot overflow the conversion; 10^12 s is 30,000 years.
        let bounded = min(max(time, -1e12), 1e12)
        return Int((bounded / DiarizationErrorRate.frameDuration - 0.5).rounded(.up))
    }

    /// Each speaker's frames, overlapping and touching segments merged, in order.
    static func bySpeaker(_ segments: [SpeakerSegment]) -> [Int: [Range<Int>]] {
        var raw: [Int: [Range<Int>]] = [:]
        for segment in segments where segment.start.isFinite && segment.end.isFinite && segment.end > segment.start {
            let range = frames(from: segment.start, to: segment.end)
            if !range.isEmpty { raw[segment.speaker, default: []].append(range) }
        }
        return raw.mapValues(merged)
    }

    /// Ranges sorted and joined where they overlap or touch.
    static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound <= last.upperBound {
                result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }
}

/// A run of frames over which nothing changes: the same speakers on both sides, and either
/// all scored or all inside a collar.
private struct DiarizationStretch {
    var frames: Int
    var reference: [Int]
    var hypothesis: [Int]
    var scored: Bool

    /// The stretches between every start and end of a segment or collar, in order. Only the
    /// boundaries are visited, not every frame, so a long recording costs no more than a short
    /// one with as many segments.
    static func sweep(
        reference: [Int: [Range<Int>]],
        hypothesis: [Int: [Range<Int>]],
        collars: [Range<Int>]
    ) -> [DiarizationStretch] {
        enum Side {
            case reference(Int)
            case hypothesis(Int)
            case collar
        }
        struct Event {
            var frame: Int
            var opens: Bool
            var side: Side
        }
        var events: [Event] = []
        for (speaker, ranges) in reference {
            for range in ranges {
                events.append(Event(frame: range.lowerBound, opens: true, side: Side.reference(speaker)))
                events.append(Event(frame: range.upperBound, opens: false, side: Side.reference(speaker)))
            }
        }
        for (speaker, ranges) in hypothesis {
            for range in ranges {
                events.append(Event(frame: range.lowerBound, opens: true, side: Side.hypothesis(speaker)))
                events.append(Event(frame: range.upperBound, opens: false, side: Side.hypothesis(speaker)))
            }
        }
        for range in collars {
            events.append(Event(frame: range.lowerBound, opens: true, side: Side.collar))
            events.append(Event(frame: range.upperBound, opens: false, side: Side.collar))
        }
        events.sort { $0.frame < $1.frame }

        // A speaker's ranges are merged, so each speaker is active at most once at a time;
        // collars may overlap one another, so they are counted.
        var activeReference: Set<Int> = []
        var activeHypothesis: Set<Int> = []
        var openCollars = 0
        var stretches: [DiarizationStretch] = []
        var index = 0
        while index < events.count {
            let frame = events[index].frame
            while index < events.count && events[index].frame == frame {
                let event = events[index]
                switch event.side {
                case .reference(let speaker):
                    if event.opens {
                        activeReference.insert(speaker)
                    } else {
                        activeReference.remove(speaker)
                    }
                case .hypothesis(let speaker):
                    if event.opens {
                        activeHypothesis.insert(speaker)
                    } else {
                        activeHypothesis.remove(speaker)
                    }
                case .collar:
                    openCollars += event.opens ? 1 : -1
                }
                index += 1
            }
            guard index < events.count else { break }
            let length = events[index].frame - frame
            if length > 0 && !(activeReference.isEmpty && activeHypothesis.isEmpty) {
                stretches.append(
                    DiarizationStretch(
                        frames: length,
                        reference: activeReference.sorted(),
                        hypothesis: activeHypothesis.sorted(),
                        scored: openCollars == 0
                    )
                )
            }
        }
        return stretches
    }
}
