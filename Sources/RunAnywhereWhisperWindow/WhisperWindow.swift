/// How much of whisper's 30 s window a transcription uses: shared by the whisper.cpp backend
/// and the raw baseline of `runanywhere bench stt`, so both decode alike. A target of its own
/// because the CLI links no engine backend (it loads them as plugins).
public enum WhisperWindow {
    /// The encoder's audio context the backend uses for `seconds` of audio; benchmarks give
    /// the raw baseline the same value.
    ///
    /// whisper pads everything to a 30 s window (1500 frames, 50 per second); a short
    /// utterance needs only its own frames plus a margin, which makes the encoder several
    /// times faster. Rounded up to a multiple of 64 so the sizes stay few; never below 640
    /// (about 13 s). The floor was chosen on the 451 real recordings under 10 s of
    /// `bench stt --real`, one greedy pass each: 384 frames gave 12.2% word errors and 3 clips
    /// that looped, 512 gave 10.1% and 2 loops, 640 gave 7.7% and none, 768 7.9% and none
    /// while taking a quarter longer (341 ms against 276 ms at the median).
    public static func audioContext(forSeconds seconds: Double) -> Int {
        let frames = Int((seconds * 50).rounded(.up)) + 128
        let rounded = (frames + 63) / 64 * 64
        return min(1500, max(640, rounded))
    }

    /// The most tokens one decoding window may produce: what a fast speaker says in the
    /// window's time (about 8 tokens a second) plus room for timestamps, so that a decoder
    /// that loops stops within the window instead of filling whisper's 224-token limit.
    public static func maxTokens(forSeconds seconds: Double) -> Int {
        min(224, 24 + Int((min(seconds, 30) * 10).rounded(.up)))
    }
}
