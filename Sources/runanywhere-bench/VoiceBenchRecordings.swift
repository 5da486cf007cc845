import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How often the voice agent ended a turn while the speaker was only pausing.
struct FalseCutReport: Encodable {
    struct Recording: Encodable {
        var id: String
        var transcript: String
        /// Pauses of 0.3 s or more inside the speech, in seconds (start, length), from the recording's start.
        var pauses: [[Double]]
        /// Where the agent decided the speaker had finished although they went on, in seconds
        /// from the recording's start.
        var cutsAt: [Double]
    }

    var recordings: Int
    /// Pauses of 0.3 s or more inside a sentence: the chances to cut in.
    var pauses: Int
    var cuts: Int
    var rate: Double
    var perRecording: [Recording]
}

/// One clip in a replayed recording, with where its speech ends by the source recording alone.
struct PlacedClip: Sendable {
    /// The clip's id in the speech set (or `synthetic-N`).
    var id: String
    /// Where the clip starts in the replayed recording, in seconds.
    var offset: TimeInterval
    /// The end of the clip's last frame at or above ``VoiceBenchRecordings/acousticThresholdDBFS``,
    /// in seconds from the clip's start; nil when no frame reaches it.
    var acousticEnd: TimeInterval?
    /// Whether the clip's very last frame reaches the threshold: its acoustic end is then only
    /// where the file stops, and the speech may have ended earlier (a noise floor above the
    /// threshold), which would make the latency look shorter than it is.
    var endsAboveThreshold: Bool
}

/// The recordings `bench voice` replays: real questions and commands, and real sentences
/// with a pause inside them.
enum VoiceBenchRecordings {
    /// Leading silence, so the VAD has settled before the first word.
    static let lead = 0.5

    /// The level, in dBFS (RMS of a frame), at or above which a source recording is still
    /// sounding. Fixed, not relative to the clip's peak nor taken from the agent's VAD, so the
    /// acoustic end belongs to the recording and is the same whatever the agent is set to.
    static let acousticThresholdDBFS: Float = -45

    /// The length of the frames the acoustic end is measured in, in seconds: the end is known to
    /// within one frame.
    static let acousticFrameDuration: TimeInterval = 0.01

    /// How the acoustic end is found, for the help, the printed output and the JSON.
    static var acousticEndMethod: String {
        let frameMs = Int((acousticFrameDuration * 1000).rounded())
        let threshold = Int(acousticThresholdDBFS.rounded())
        return "the end of the last \(frameMs) ms frame at or above \(threshold) dBFS in the source recording, "
            + "independent of the agent's VAD"
    }

    /// Where `audio` stops sounding: the end of its last frame at or above
    /// ``acousticThresholdDBFS``, in seconds from its start, and whether that frame is its last;
    /// nil when no frame reaches the threshold.
    static func acousticEnd(_ audio: PCMAudio) -> (seconds: TimeInterval, atLastFrame: Bool)? {
        let levels = audio.frameLevels(frameDuration: acousticFrameDuration)
        guard let last = levels.lastIndex(where: { $0 >= acousticThresholdDBFS }) else { return nil }
        // The last frame may be shorter than the others.
        let end = min(audio.duration, Double(last + 1) * audio.frameLength(acousticFrameDuration))
        return (end, last == levels.count - 1)
    }

    /// Where `audio` starts sounding: the start of its first frame at or above
    /// ``acousticThresholdDBFS``, in seconds from its start; nil when no frame reaches it.
    static func acousticStart(_ audio: PCMAudio) -> TimeInterval? {
        let levels = audio.frameLevels(frameDuration: acousticFrameDuration)
        guard let first = levels.firstIndex(where: { $0 >= acousticThresholdDBFS }) else { return nil }
        return Double(first) * audio.frameLength(acousticFrameDuration)
    }

    /// `source` as placed at `offset` seconds into a replayed recording, its acoustic end taken
    /// from the file as read, before it is converted for the agent.
    static func placement(of source: PCMAudio, id: String, at offset: TimeInterval) -> PlacedClip {
        let end = acousticEnd(source)
        return PlacedClip(
            id: id,
            offset: offset,
            acousticEnd: end?.seconds,
            endsAboveThreshold: end?.atLastFrame ?? false
        )
    }

    /// Short real recordings (1–4.5 s) taken in turn from every speaker, questions first,
    /// each followed by `gap` seconds of silence; and where each clip sits in it.
    static func questions(
        from corpus: SpeechCorpus,
        turns: Int,
        gap: TimeInterval
    ) throws -> (PCMAudio, [PlacedClip]) {
        let candidates = corpus.clips.filter { $0.seconds >= 1 && $0.seconds <= 4.5 }
        let picked = interleavedBySpeaker(
            candidates.filter { $0.transcript.hasSuffix("?") } + candidates.filter { !$0.transcript.hasSuffix("?") },
            count: turns
        )
        guard !picked.isEmpty else {
            throw SDKException(.invalidInput, "The speech set at \(corpus.folder.path) has no clips of 1–4.5 s")
        }
        var recording = PCMAudio.silence(duration: lead, sampleRate: 16_000)
        var placed: [PlacedClip] = []
        for clip in picked {
            let source = try WAVFile.read(contentsOf: clip.file)
            placed.append(placement(of: source, id: clip.id, at: recording.duration))
            recording.append(source.speechInput())
            recording.append(.silence(duration: gap, sampleRate: 16_000))
        }
        return (recording, placed)
    }

    /// Replays real sentences with pauses inside them (natural ones, and ones inserted at a
    /// quiet point between 30% and 70% of the speech) and counts the turns the agent ended
    /// before the speech did.
    static func falseCuts(corpus: SpeechCorpus, count: Int, gap: TimeInterval) async throws -> FalseCutReport {
        // Single sentences long enough to hold a pause in the middle: a pause between two
        // sentences may well be the end of a turn.
        let candidates = corpus.clips.filter { clip in
            clip.seconds >= 2 && clip.seconds <= 11 && clip.transcript.split(separator: " ").count >= 4
                && !clip.transcript.dropLast().contains { ".?!".contains($0) }
        }
        // Recordings that already pause inside a sentence come first.
        let natural = candidates.filter { clip in
            guard let audio = try? WAVFile.read(contentsOf: clip.file).speechInput() else { return false }
            return !internalPauses(audio).isEmpty
        }
        let picked =
            Array(natural.prefix(count))
            + interleavedBySpeaker(
                candidates.filter { clip in !natural.contains { $0.id == clip.id } },
                count: max(0, count - natural.count)
            )
        let insertedLengths = [0.5, 0.7, 0.9]
        var recording = PCMAudio.silence(duration: lead, sampleRate: 16_000)
        var placed: [(clip: SpeechCorpus.Clip, offset: TimeInterval, audio: PCMAudio)] = []
        for (index, clip) in picked.enumerated() {
            var audio = try WAVFile.read(contentsOf: clip.file).speechInput()
            if internalPauses(audio).isEmpty {
                audio = insertingPause(into: audio, length: insertedLengths[index % insertedLengths.count])
            }
            placed.append((clip, recording.duration, audio))
            recording.append(audio)
            recording.append(.silence(duration: gap, sampleRate: 16_000))
        }
        let events = try await BenchCommand.Voice.replay(recording).events
        let decisions = events.compactMap { event -> TimeInterval? in
            if case .speechEnded(let time) = event { return time }
            return nil
        }
        var perRecording: [FalseCutReport.Recording] = []
        for (index, (clip, offset, audio)) in placed.enumerated() {
            guard let span = speechSpan(audio) else { continue }
            // Each recording is one turn: every end of turn decided inside it but the last
            // cut the speaker off while they were pausing.
            let next = index + 1 < placed.count ? placed[index + 1].offset : recording.duration
            let ends = decisions.filter { $0 >= offset + span.start && $0 < next }
            let cuts = ends.dropLast()
            perRecording.append(
                FalseCutReport.Recording(
                    id: clip.id,
                    transcript: clip.transcript,
                    pauses: internalPauses(audio).map { [$0.start, $0.length] },
                    cutsAt: cuts.map { $0 - offset }
                )
            )
        }
        let pauses = perRecording.map(\.pauses.count).reduce(0, +)
        let cuts = perRecording.map(\.cutsAt.count).reduce(0, +)
        return FalseCutReport(
            recordings: perRecording.count,
            pauses: pauses,
            cuts: cuts,
            rate: pauses == 0 ? 0 : Double(cuts) / Double(pauses),
            perRecording: perRecording
        )
    }

    /// Up to `count` clips, one speaker after another, each speaker's clips in order.
    static func interleavedBySpeaker(_ clips: [SpeechCorpus.Clip], count: Int) -> [SpeechCorpus.Clip] {
        var bySpeaker: [String: [SpeechCorpus.Clip]] = [:]
        var speakers: [String] = []
        for clip in clips {
            if bySpeaker[clip.speaker] == nil { speakers.append(clip.speaker) }
            bySpeaker[clip.speaker, default: []].append(clip)
        }
        var picked: [SpeechCorpus.Clip] = []
        var round = 0
        while picked.count < count, speakers.contains(where: { (bySpeaker[$0]?.count ?? 0) > round }) {
            for speaker in speakers where picked.count < count {
                if let clips = bySpeaker[speaker], clips.count > round { picked.append(clips[round]) }
            }
            round += 1
        }
        return picked
    }

    /// The level of each 20 ms frame in dBFS, the frame length in seconds, and the speech
    /// threshold: 35 dB under the loudest frame.
    private static func frameLevels(_ audio: PCMAudio) -> (levels: [Float], seconds: Double, threshold: Float) {
        let levels = audio.frameLevels()
        return (levels, audio.frameLength(0.02), (levels.max() ?? 0) - 35)
    }

    /// From the first to the last frame of speech, in seconds.
    static func speechSpan(_ audio: PCMAudio) -> (start: Double, end: Double)? {
        let (levels, seconds, threshold) = frameLevels(audio)
        guard let first = levels.firstIndex(where: { $0 >= threshold }),
            let last = levels.lastIndex(where: { $0 >= threshold })
        else { return nil }
        return (Double(first) * seconds, Double(last + 1) * seconds)
    }

    /// Silences of 0.3 s or more between the first and the last frame of speech.
    static func internalPauses(_ audio: PCMAudio) -> [(start: Double, length: Double)] {
        let (levels, seconds, threshold) = frameLevels(audio)
        guard let first = levels.firstIndex(where: { $0 >= threshold }),
            let last = levels.lastIndex(where: { $0 >= threshold })
        else { return [] }
        var pauses: [(Double, Double)] = []
        var run = 0
        for index in first...last {
            if levels[index] < threshold {
                run += 1
                continue
            }
            if Double(run) * seconds >= 0.3 { pauses.append((Double(index - run) * seconds, Double(run) * seconds)) }
            run = 0
        }
        return pauses
    }

    /// `audio` with `length` seconds of silence at its quietest 60 ms between 30% and 70% of
    /// the speech: most often a gap between two words.
    static func insertingPause(into audio: PCMAudio, length: TimeInterval) -> PCMAudio {
        let (levels, seconds, _) = frameLevels(audio)
        guard let span = speechSpan(audio), levels.count >= 3 else { return audio }
        let from = Int((span.start + 0.3 * (span.end - span.start)) / seconds)
        let to = max(from + 1, Int((span.start + 0.7 * (span.end - span.start)) / seconds))
        let window = { (index: Int) -> Float in
            (max(0, index - 1)...min(levels.count - 1, index + 1)).map { levels[$0] }.reduce(0, +)
        }
        let quietest = (from..<min(to, levels.count)).min { window($0) < window($1) } ?? from
        let cut = Double(quietest) * seconds + seconds / 2
        var result = audio.slice(from: 0, to: cut)
        result.append(.silence(duration: length, sampleRate: audio.sampleRate))
        result.append(audio.slice(from: cut, to: audio.duration))
        return result
    }
}
