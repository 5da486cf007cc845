#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns per-frame speech probabilities into speech-started / speech-ended events.
///
/// Speech starts once frames at or above the threshold have run for `minSpeechDuration`
/// (stamped at the first of them); it ends once frames below it have run for
/// `minSilenceDuration` (stamped where the silence began). Short dips inside speech and
/// short bursts inside silence therefore change nothing.
struct VoiceActivityTracker: Sendable {
    var configuration: VADConfiguration
    /// Seconds per frame. The energy detector's frame can change mid-stream
    /// (``VADConfiguration/frameLength``): frames already seen keep the length they had, so
    /// times and a run in progress carry over.
    var frameDuration: TimeInterval {
        didSet {
            guard frameDuration != oldValue else { return }
            origin += Double(frames) * oldValue
            runCarried += Double(runLength) * oldValue
            frames = 0
            runLength = 0
        }
    }

    private(set) var isSpeech = false
    /// Frames since `origin`, the time at which the current ``frameDuration`` took effect.
    /// Counting frames (rather than adding up durations) keeps times exact multiples.
    private var frames = 0
    private var origin: TimeInterval = 0
    /// Where the current run of frames disagreeing with ``isSpeech`` began; `nil` when none.
    private var runStart: TimeInterval?
    /// The run's frames at the current ``frameDuration``, after `runCarried` seconds at earlier ones.
    private var runLength = 0
    private var runCarried: TimeInterval = 0
    /// Where the current speech began.
    private var speechStart: TimeInterval = 0

    init(configuration: VADConfiguration, frameDuration: TimeInterval) {
        self.configuration = configuration
        self.frameDuration = frameDuration
    }

    /// Time at the end of the frames seen so far.
    var time: TimeInterval { origin + Double(frames) * frameDuration }

    /// Feeds one frame's probability; returns the event it completes, if any.
    mutating func consume(_ probability: Float) -> SpeechActivityEvent? {
        let frameStart = time
        frames += 1
        let voiced = probability >= configuration.threshold
        if voiced == isSpeech {
            endRun()  // the state is confirmed; any candidate run is broken
            return nil
        }
        let start = runStart ?? frameStart
        runStart = start
        runLength += 1
        let needed = isSpeech ? configuration.minSilenceDuration : configuration.minSpeechDuration
        guard runCarried + Double(runLength) * frameDuration >= needed else { return nil }
        isSpeech.toggle()
        endRun()
        if isSpeech {
            speechStart = start
            return SpeechActivityEvent(kind: .speechStarted, time: start)
        }
        return SpeechActivityEvent(kind: .speechEnded, time: start, duration: start - speechStart)
    }

    /// Closes an open speech segment at the end of the stream.
    mutating func finish() -> SpeechActivityEvent? {
        guard isSpeech else { return nil }
        isSpeech = false
        endRun()
        return SpeechActivityEvent(kind: .speechEnded, time: time, duration: time - speechStart)
    }

    mutating func reset() {
        isSpeech = false
        frames = 0
        origin = 0
        endRun()
        speechStart = 0
    }

    private mutating func endRun() {
        runStart = nil
        runLength = 0
        runCarried = 0
    }
}
