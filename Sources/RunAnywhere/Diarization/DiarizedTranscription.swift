#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A transcript by speaker: the recording is diarized, each speaker's turn is transcribed
/// on its own, and the turns' segments carry the speaker.
///
/// Transcribing by turn, rather than labelling whisper's segments afterwards, keeps a
/// segment from spanning two voices: whisper cuts where its timestamps fall, not where
/// the speaker changes.
enum DiarizedTranscription {
    /// Consecutive stretches of one speaker closer than this are one turn.
    static let turnGap: TimeInterval = 1.0
    /// Audio kept around a turn, so its first and last syllables are whole.
    static let margin: TimeInterval = 0.1

    static func transcribe(
        _ audio: PCMAudio,
        options: STTOptions,
        stt: STTCapability,
        diarization: DiarizationCapability
    ) async throws(SDKException) -> STTOutput {
        guard let diarizationOptions = options.diarization else {
            return try await stt.transcribe(audio, options: options)
        }
        try options.validate()
        // The audio and the engines first: bad input or a missing model fails before any work.
        try STTCapability.validate(audio)
        _ = try await stt.loadedService()
        let started = ContinuousClock.now
        let input = audio.speechInput()
        let turns = turns(try await diarization.diarize(input, options: diarizationOptions))
        var turnOptions = options
        turnOptions.diarization = nil
        turnOptions.enableTimestamps = true
        var transcripts = [STTOutput?](repeating: nil, count: turns.count)
        let starts = turns.indices.map { clipStart($0, of: turns) }
        // The longest turn first: without a given language, a multilingual model detects it
        // there, where it has the most to go on, and every other turn uses it.
        let order = turns.indices.sorted { turns[$0].duration > turns[$1].duration }
        for index in order {
            let clip = input.slice(from: starts[index], to: clipEnd(index, of: turns, in: input.duration))
            guard clip.duration >= STTCapability.minimumDuration else { continue }
            let output = try await stt.transcribe(clip, options: turnOptions)
            if turnOptions.language == nil, let detected = output.language { turnOptions.language = detected }
            transcripts[index] = output
        }
        var segments: [STTSegment] = []
        var texts: [String] = []
        var modelId = ""
        for (index, output) in transcripts.enumerated() {
            guard let output else { continue }
            modelId = output.modelId
            let text = output.text.trimmed()
            guard !text.isEmpty else { continue }
            texts.append(text)
            let from = starts[index]
            let pieces =
                output.segments.isEmpty
                ? [STTSegment(text: text, start: 0, end: output.audioDuration, confidence: output.confidence)]
                : output.segments
            for piece in pieces {
                var segment = piece
                segment.start += from
                segment.end += from
                segment.speaker = turns[index].speaker
                segments.append(segment)
            }
        }
        let language = turnOptions.language
        if modelId.isEmpty { modelId = await stt.currentModel?.id ?? "" }
        return STTOutput(
            text: texts.joined(separator: " "),
            segments: segments,
            language: language,
            confidence: nil,
            modelId: modelId,
            audioDuration: input.duration,
            processingTimeMs: started.duration(to: .now).milliseconds
        )
    }

    /// Where the audio of turn `index` starts: ``margin`` before it, but never inside the
    /// turn before (its last word would be heard twice, under two speakers).
    static func clipStart(_ index: Int, of turns: [SpeakerSegment]) -> TimeInterval {
        let earliest = index > 0 ? turns[index - 1].end : 0
        return max(0, min(turns[index].start, max(earliest, turns[index].start - margin)))
    }

    /// Where the audio of turn `index` ends: ``margin`` after it, but never inside the next.
    static func clipEnd(_ index: Int, of turns: [SpeakerSegment], in duration: TimeInterval) -> TimeInterval {
        let latest = index + 1 < turns.count ? turns[index + 1].start : duration
        return min(duration, max(turns[index].end, min(latest, turns[index].end + margin)))
    }

    /// Stretches of one speaker joined into turns across short pauses.
    static func turns(_ segments: [SpeakerSegment]) -> [SpeakerSegment] {
        var turns: [SpeakerSegment] = []
        for segment in segments {
            if let last = turns.last, last.speaker == segment.speaker, segment.start - last.end < turnGap {
                turns[turns.count - 1].end = segment.end
            } else {
                turns.append(segment)
            }
        }
        return turns
    }
}
