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
    let frameDuration: TimeInterval

    private(set) var isSpeech = false
    private(set) var framesSeen = 0
    private var runStart = 0
    private var runLength = 0
    /// Where the current speech began.
    private var speechStart: TimeInterval = 0

    init(configuration: VADConfiguration, frameDuration: TimeInterval) {
        self.configuration = configuration
        self.frameDuration = frameDuration
    }

    /// Time at the end of the frames seen so far.
    var time: TimeInterval { Double(framesSeen) * frameDuration }

    /// Feeds one frame's probability; returns the event it completes, if any.
    mutating func consume(_ probability: Float) -> SpeechActivityEvent? {
        let frame = framesSeen
        framesSeen += 1
        let voiced = probability >= configuration.threshold
        if voiced == isSpeech {
            runLength = 0  // the state is confirmed; any candidate run is broken
            return nil
        }
        if runLength == 0 { runStart = frame }
        runLength += 1
        let needed = isSpeech ? configuration.minSilenceDuration : configuration.minSpeechDuration
        guard Double(runLength) * frameDuration >= needed else { return nil }
        isSpeech.toggle()
        runLength = 0
        let time = Double(runStart) * frameDuration
        if isSpeech {
            speechStart = time
            return SpeechActivityEvent(kind: .speechStarted, time: time)
        }
        return SpeechActivityEvent(kind: .speechEnded, time: time, duration: time - speechStart)
    }

    /// Closes an open speech segment at the end of the stream.
    mutating func finish() -> SpeechActivityEvent? {
        guard isSpeech else { return nil }
        isSpeech = false
        runLength = 0
        return SpeechActivityEvent(kind: .speechEnded, time: time, duration: time - speechStart)
    }

    mutating func reset() {
        isSpeech = false
        framesSeen = 0
        runLength = 0
        runStart = 0
        speechStart = 0
    }
}
