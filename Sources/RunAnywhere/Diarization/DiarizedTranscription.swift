import Foundation

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
        _ audio: AudioBuffer,
        options: STTOptions,
        stt: STTCapability,
        diarization: DiarizationCapability
    ) async throws(SDKException) -> STTOutput {
        guard let diarizationOptions = options.diarization else {
            return try await stt.transcribe(audio, options: options)
        }
        try options.validate()
        let started = ContinuousClock.now
        let input = audio.speechInput()
        // The engines first: a missing model fails before any work.
        _ = try await stt.loadedService()
        let speakers = try await diarization.diarize(input, options: diarizationOptions)
        var turnOptions = options
        turnOptions.diarization = nil
        turnOptions.enableTimestamps = true
        var segments: [STTSegment] = []
        var texts: [String] = []
        var language: String?
        var modelId = ""
        for turn in turns(speakers) {
            let from = max(0, turn.start - margin)
            let to = min(input.duration, turn.end + margin)
            let clip = input.slice(from: from, to: to)
            guard clip.duration >= STTCapability.minimumDuration else { continue }
            let output = try await stt.transcribe(clip, options: turnOptions)
            modelId = output.modelId
            language = language ?? output.language
            let text = output.text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { continue }
            texts.append(text)
            let pieces =
                output.segments.isEmpty
                ? [STTSegment(text: text, start: 0, end: clip.duration, confidence: output.confidence)]
                : output.segments
            for piece in pieces {
                var segment = piece
                segment.start += from
                segment.end += from
                segment.speaker = turn.speaker
                segments.append(segment)
            }
        }
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
