#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A conversation put together from real recordings of different people, with the truth of who
/// speaks when: test material for diarization, as no recording of the speech set has more than
/// one voice.
///
/// Turns take one clip (or one piece of a long clip) each, from speakers chosen in a seeded
/// order that never gives the same speaker two turns in a row, with short pauses between them.
/// Every turn is brought to the same level, so that loudness does not tell the speakers apart,
/// and a faint noise floor runs under the whole conversation, so that the pauses are not
/// digital silence. The same corpus, speakers and seed always give the same conversation.
///
/// ```swift
/// let corpus = try SpeechCorpus.bootstrapped()
/// for (name, conversation) in try AssembledConversation.standardSet(from: corpus) {
///     let found = try await RunAnywhere.diarize(conversation.audio)
///     print(name, DiarizationErrorRate(reference: conversation.truth, hypothesis: found).rate)
/// }
/// ```
package struct AssembledConversation: Sendable {
    /// The conversation, 16 kHz mono.
    package var audio: PCMAudio
    /// Who speaks when: one segment per turn, spanning the turn's audible speech (the clip's own
    /// leading and trailing quiet left out), in order.
    package var truth: [SpeakerSegment]
    /// The corpus speaker of each speaker number of ``truth``: speakers are numbered by their
    /// first turn, as a diarizer numbers them.
    package var speakers: [String]

    /// The rate of ``audio``.
    package static let sampleRate = 16_000
    /// The level each turn is brought to, in dBFS over its active frames (those within 30 dB of
    /// its loudest): the −23 of EBU R 128, without the loudness weighting.
    package static let speechLevel: Double = -23
    /// A 10 ms frame of a levelled turn quieter than this, in dBFS, is not speech.
    package static let quietLevel: Float = -45
    /// The level of the noise floor under the conversation, in dBFS.
    package static let noiseLevel: Double = -70
    /// Clips longer than this, in seconds, are cut at their pauses (see ``make(from:speakers:turns:seed:gap:)``).
    package static let longestPiece: TimeInterval = 6
    /// Pieces with less audible speech than this, in seconds, are not used: a turn that short
    /// would lie wholly within the collars of ``DiarizationErrorRate`` and count for nothing.
    package static let shortestTurn: TimeInterval = 0.6
    /// Clips longer than this, in seconds, are not used: a few of the telephone prompts run to
    /// half a minute, which would make one turn most of a conversation.
    package static let longestClip: TimeInterval = 12

    /// A conversation of `turns` turns between `speakers` (names as the corpus has them).
    ///
    /// The first turns give each speaker one turn, in a seeded order; each later turn goes to a
    /// seeded choice among the speakers other than the last one. Each speaker's clips are taken
    /// in a seeded order, starting over when all have been used. A clip longer than
    /// ``longestPiece`` is cut in the middle of its longest pause (at least 0.15 s below −40
    /// dBFS once levelled) into pieces of at least 1.5 s, again while a piece is too long and
    /// has such a pause, and each piece is a turn of its own: the eleven seconds of "jfk", with
    /// its long pauses, make four turns. Pauses of a seeded length in `gap` come before the
    /// first turn, between turns and after the last.
    package static func make(
        from corpus: SpeechCorpus,
        speakers names: [String],
        turns: Int,
        seed: UInt64,
        gap: ClosedRange<TimeInterval> = 0.3...0.9
    ) throws(SDKException) -> AssembledConversation {
        guard names.count >= 2 else {
            throw SDKException(.invalidInput, "A conversation needs at least 2 speakers, not \(names.count)")
        }
        guard Set(names).count == names.count else {
            throw SDKException(.invalidInput, "The speakers of a conversation must differ: \(names)")
        }
        guard turns >= names.count else {
            throw SDKException(
                .invalidInput,
                "\(turns) turn(s) cannot give each of \(names.count) speakers a turn"
            )
        }
        guard gap.lowerBound >= 0, gap.upperBound <= 60 else {
            throw SDKException(.invalidInput, "Pauses of \(gap) s are out of range (0 to 60 s)")
        }

        var random = SplitMix(seed: seed)
        var sources: [SpeakerPieces] = []
        for name in names {
            let clips = corpus.clips.filter { $0.speaker == name && $0.seconds <= longestClip }
            guard !clips.isEmpty else {
                throw SDKException(
                    .invalidInput,
                    "The speech set has no clip of \(name) of at most \(Int(longestClip)) s",
                    recovery: "Use speakers listed in \(corpus.folder.path)/manifest.tsv"
                )
            }
            sources.append(SpeakerPieces(name: name, clips: random.shuffled(clips)))
        }

        var order = random.shuffled(Array(names.indices))
        while order.count < turns {
            guard let last = order.last else { break }
            let others = names.indices.filter { $0 != last }
            order.append(others[random.index(below: others.count)])
        }
        // The first turns are a permutation of the speakers, so this is their order of appearance.
        let appearance = Array(order.prefix(names.count))
        var number: [Int: Int] = [:]
        for (position, speaker) in appearance.enumerated() {
            number[speaker] = position
        }

        let rate = Double(sampleRate)
        var samples: [Float] = []
        var truth: [SpeakerSegment] = []
        samples += silence(random.uniform(in: gap))
        for (turn, speaker) in order.enumerated() {
            if turn > 0 {
                samples += silence(random.uniform(in: gap))
            }
            let piece = try sources[speaker].next()
            let offset = samples.count
            samples += piece.audio.samples
            truth.append(
                SpeakerSegment(
                    speaker: number[speaker] ?? speaker,
                    start: Double(offset + piece.speech.lowerBound) / rate,
                    end: Double(offset + piece.speech.upperBound) / rate
                )
            )
        }
        samples += silence(random.uniform(in: gap))

        // Uniform noise of that RMS: the amplitude is √3 times the RMS.
        let amplitude = Float(pow(10, noiseLevel / 20) * 3.0.squareRoot())
        for index in samples.indices {
            let noise = Float(random.nextUnit() * 2 - 1) * amplitude
            samples[index] = max(-1, min(1, samples[index] + noise))
        }
        return AssembledConversation(
            audio: PCMAudio(samples: samples, sampleRate: sampleRate),
            truth: truth,
            speakers: appearance.map { names[$0] }
        )
    }

    /// The conversations `bench diarize` and the diarization tests use, by name.
    ///
    /// Speakers are those of the speech set with several clips, or one long one cut at its pauses:
    /// "librivox-reader" (a man reading Austen), "ps-cards" (a man reading card names), "jfk"
    /// (the inaugural address), "alsa" (the woman of ALSA's channel test) and "asterisk-allison"
    /// (Allison Smith's telephone prompts, 8 kHz). Voices of one clip would repeat the very
    /// same audio turn after turn (the two CMU ARCTIC voices), and the parselmouth digits have
    /// about 0.3 s of speech each, within the scoring collars; those are left out.
    /// Each conversation lasts between about 20 and 50 s.
    package static func standardSet(
        from corpus: SpeechCorpus
    ) throws(SDKException) -> [(name: String, conversation: AssembledConversation)] {
        var set: [(name: String, conversation: AssembledConversation)] = []
        for recipe in StandardConversation.all {
            let conversation = try make(from: corpus, speakers: recipe.speakers, turns: recipe.turns, seed: recipe.seed)
            set.append((name: recipe.name, conversation: conversation))
        }
        return set
    }

    /// `seconds` of zero samples at ``sampleRate``.
    private static func silence(_ seconds: TimeInterval) -> [Float] {
        [Float](repeating: 0, count: max(0, Int(seconds * Double(sampleRate))))
    }
}

/// One conversation of ``AssembledConversation/standardSet(from:)``.
private struct StandardConversation: Sendable {
    var name: String
    var speakers: [String]
    var turns: Int
    var seed: UInt64

    /// Easy pairs of a man and a woman, hard pairs of one gender, and three-speaker mixes.
    static let all = [
        // A man and a woman.
        StandardConversation(name: "librivox-alsa", speakers: ["librivox-reader", "alsa"], turns: 10, seed: 1),
        // A man and a woman on a telephone line.
        StandardConversation(name: "jfk-allison", speakers: ["jfk", "asterisk-allison"], turns: 8, seed: 2),
        // Two men, both reading.
        StandardConversation(name: "librivox-cards", speakers: ["librivox-reader", "ps-cards"], turns: 10, seed: 3),
        // Two women (one of them band-limited to 4 kHz).
        StandardConversation(name: "alsa-allison", speakers: ["alsa", "asterisk-allison"], turns: 12, seed: 4),
        // Two men and a woman.
        StandardConversation(
            name: "librivox-alsa-jfk",
            speakers: ["librivox-reader", "alsa", "jfk"],
            turns: 12,
            seed: 5
        ),
        // A man and two women.
        StandardConversation(
            name: "cards-allison-alsa",
            speakers: ["ps-cards", "asterisk-allison", "alsa"],
            turns: 12,
            seed: 6
        ),
    ]
}

/// A turn's worth of one speaker: levelled audio and where its speech is.
private struct ConversationPiece {
    var audio: PCMAudio
    /// The samples from the first to the last audible frame.
    var speech: Range<Int>
}

/// One speaker's clips, handed out as pieces in turn, starting over after the last.
private struct SpeakerPieces {
    var name: String
    var clips: [SpeechCorpus.Clip]
    private var cursor = 0
    private var pending: [ConversationPiece] = []
    /// Pieces of clips already read, by position in `clips`, for the second time round.
    private var cache: [Int: [ConversationPiece]] = [:]

    init(name: String, clips: [SpeechCorpus.Clip]) {
        self.name = name
        self.clips = clips
    }

    /// The next piece, reading the next clip when the last one's pieces are used up.
    mutating func next() throws(SDKException) -> ConversationPiece {
        var reads = 0
        while pending.isEmpty {
            // A whole round of clips without an audible one would loop for ever.
            guard reads < clips.count else {
                throw SDKException(
                    .invalidAudio,
                    "No clip of \(name) in the speech set has \(AssembledConversation.shortestTurn) s of audible speech"
                )
            }
            let position = cursor % clips.count
            cursor += 1
            reads += 1
            if let pieces = cache[position] {
                pending = pieces
            } else {
                let pieces = try Self.pieces(of: clips[position])
                cache[position] = pieces
                pending = pieces
            }
        }
        return pending.removeFirst()
    }

    /// A clip as 16 kHz pieces, each levelled; pieces with less than
    /// ``AssembledConversation/shortestTurn`` of audible speech are left out.
    private static func pieces(of clip: SpeechCorpus.Clip) throws(SDKException) -> [ConversationPiece] {
        let audio = try WAVFile.read(contentsOf: clip.file).speechInput(sampleRate: AssembledConversation.sampleRate)
        guard let whole = levelled(audio) else { return [] }
        let frame = frameSamples
        let levels = whole.frameLevels(frameDuration: frameDuration)
        var pieces: [ConversationPiece] = []
        for range in cuts(levels, 0..<levels.count) {
            let first = min(whole.samples.count, range.lowerBound * frame)
            let last = min(whole.samples.count, range.upperBound * frame)
            let part = PCMAudio(samples: Array(whole.samples[first..<last]), sampleRate: whole.sampleRate)
            guard let turn = levelled(part), let speech = audibleSpan(of: turn) else { continue }
            let shortest = Int(AssembledConversation.shortestTurn * Double(AssembledConversation.sampleRate))
            guard speech.count >= shortest else { continue }
            pieces.append(ConversationPiece(audio: turn, speech: speech))
        }
        return pieces
    }

    /// The frames the level analysis works on: 10 ms.
    private static let frameDuration: TimeInterval = 0.01
    private static var frameSamples: Int {
        max(1, Int(frameDuration * Double(AssembledConversation.sampleRate)))
    }

    /// The audio brought to ``AssembledConversation/speechLevel`` over its active frames, so that
    /// a clip with long silent padding is not made louder than one without; `nil` when silent.
    private static func levelled(_ audio: PCMAudio) -> PCMAudio? {
        let levels = audio.frameLevels(frameDuration: frameDuration)
        guard let loudest = levels.max(), loudest > -.infinity else { return nil }
        let active = levels.filter { $0 >= loudest - 30 }
        guard !active.isEmpty else { return nil }
        let power = active.reduce(0.0) { $0 + pow(10, Double($1) / 10) } / Double(active.count)
        let level = 10 * log10(power)
        return audio.scaled(by: Float(pow(10, (AssembledConversation.speechLevel - level) / 20)))
    }

    /// Frame ranges of pieces no longer than ``AssembledConversation/longestPiece`` where pauses allow.
    private static func cuts(_ levels: [Float], _ range: Range<Int>) -> [Range<Int>] {
        let longest = Int(AssembledConversation.longestPiece / frameDuration)
        let shortestPiece = 150  // frames: 1.5 s
        let shortestPause = 15  // frames: 0.15 s
        let pauseLevel: Float = -40
        guard range.count > longest else { return [range] }
        var best: (length: Int, middle: Int)?
        var index = range.lowerBound
        while index < range.upperBound {
            guard levels[index] < pauseLevel else {
                index += 1
                continue
            }
            var end = index
            while end < range.upperBound && levels[end] < pauseLevel {
                end += 1
            }
            let length = end - index
            let middle = (index + end) / 2
            let fits = middle - range.lowerBound >= shortestPiece && range.upperBound - middle >= shortestPiece
            if length >= shortestPause && fits && length > (best?.length ?? 0) {
                best = (length: length, middle: middle)
            }
            index = end
        }
        guard let best else { return [range] }
        return cuts(levels, range.lowerBound..<best.middle) + cuts(levels, best.middle..<range.upperBound)
    }

    /// The samples from the start of the first run of three audible frames to the end of the
    /// last: a single loud frame (a click, a breath) does not stretch the truth. `nil` when
    /// there is no such run.
    private static func audibleSpan(of audio: PCMAudio) -> Range<Int>? {
        let levels = audio.frameLevels(frameDuration: frameDuration)
        let shortestRun = 3
        var first: Int?
        var last = 0
        var index = 0
        while index < levels.count {
            guard levels[index] >= AssembledConversation.quietLevel else {
                index += 1
                continue
            }
            var end = index
            while end < levels.count && levels[end] >= AssembledConversation.quietLevel {
                end += 1
            }
            if end - index >= shortestRun {
                if first == nil { first = index }
                last = end
            }
            index = end
        }
        guard let first else { return nil }
        let frame = frameSamples
        let start = min(audio.samples.count, first * frame)
        let end = min(audio.samples.count, last * frame)
        return start < end ? start..<end : nil
    }
}

/// The few draws the assembly needs, written out so that a seed gives the same conversation on
/// every platform and Swift version (the standard library's shuffle and random ranges promise
/// no particular sequence).
extension SplitMix {
    /// Uniform in 0..<count (the modulo bias is below 10^-17 for the counts used here).
    fileprivate mutating func index(below count: Int) -> Int {
        Int(next() % UInt64(max(1, count)))
    }

    /// Uniform in the range.
    fileprivate mutating func uniform(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * nextUnit()
    }

    /// A Fisher–Yates shuffle.
    fileprivate mutating func shuffled<Element>(_ items: [Element]) -> [Element] {
        var result = items
        var index = result.count - 1
        while index > 0 {
            result.swapAt(index, self.index(below: index + 1))
            index -= 1
        }
        return result
    }
}
