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

/// Tells the agent's own voice, coming back into the microphone from the loudspeaker, from
/// the user talking over it.
///
/// On a device without headphones the microphone hears the reply the agent is playing; to
/// the VAD that is speech, and it would interrupt the agent with its own voice. The gate
/// knows what was played and when (the *reference*), and compares levels in 8 ms frames:
/// - the **delay** from playback to microphone is the lag (0 to ``Settings/maximumDelay``)
///   at which the microphone's level envelope correlates best with the reference's;
/// - the **echo gain** is what the room lets through: a low percentile of the microphone
///   to reference power ratio while the reference plays, so the user's speech, which only
///   raises the ratio, does not inflate it; with headphones it is simply tiny;
/// - a chunk is **echo** when the microphone is no louder than the echo the reference
///   predicts, plus ``Settings/margin`` dB. Anything louder is the user.
///
/// Until it has heard half a second of the reference, enough to estimate the delay and
/// gain, it assumes the worst (any delay, the echo as loud as the playback), so the agent is
/// never cut off by itself; the user can barge in once the estimate exists.
///
/// It is pure: times are seconds of the microphone stream, so it is tested on synthetic
/// signals without a clock.
struct EchoGate: Sendable {
    struct Settings: Sendable, Equatable {
        /// The longest playback-to-microphone delay searched, in seconds.
        var maximumDelay: TimeInterval = 0.4
        /// How much louder than the predicted echo the microphone must be to be the user, in dB.
        var margin: Float = 5
        /// How long the echo lingers after the reference (reverberation), in seconds.
        var tail: TimeInterval = 0.06
        /// Microphone levels under this are silence whatever the reference, in dBFS.
        var floorDecibels: Float = -55
    }

    /// What the gate made of a chunk.
    enum Verdict: Sendable, Equatable {
        /// Nothing is playing: the chunk is what the microphone heard.
        case noPlayback
        /// The chunk is explained by the agent's own voice.
        case echo
        /// The chunk is louder than the echo: the user.
        case speech
    }

    static let frameLength = 128
    static let sampleRate = 16_000
    static let frameDuration = Double(frameLength) / Double(sampleRate)
    /// Frames of playback (0.5 s) the estimates need.
    static let evidenceFrames = 62

    let settings: Settings
    /// Power of the reference per frame of the microphone's timeline, from `referenceStart`.
    private var reference: [Float] = []
    private var referenceStart = 0
    /// Power of the microphone per frame, from `micStart`.
    private var mic: [Float] = []
    private var micStart = 0
    /// The estimated delay, in frames.
    private(set) var delayFrames: Int?
    /// The estimated echo power gain.
    private(set) var echoGain: Float?
    private var chunksSinceEstimate = 0
    /// How much louder than the predicted echo the last chunk was, in dB (for diagnostics).
    private(set) var lastExcessDecibels: Float = 0

    init(settings: Settings = Settings()) {
        self.settings = settings
    }

    private var maximumLag: Int { Int(settings.maximumDelay / Self.frameDuration) }
    private var tailFrames: Int { max(1, Int(settings.tail / Self.frameDuration)) }
    /// Frames of history kept for the estimates: two seconds.
    private let history = Int(2 / frameDuration)

    /// Records that `audio` (16 kHz mono) started playing at `time` seconds of the microphone stream.
    mutating func addReference(_ audio: PCMAudio, at time: TimeInterval) {
        let first = max(0, Int((time / Self.frameDuration).rounded()))
        let powers = Self.framePowers(audio.samples[...])
        if reference.isEmpty { referenceStart = first }
        let end = first + powers.count
        if end - referenceStart > reference.count {
            reference += [Float](repeating: 0, count: end - referenceStart - reference.count)
        }
        for (offset, power) in powers.enumerated() where first + offset >= referenceStart {
            reference[first + offset - referenceStart] += power
        }
    }

    /// Records that playback stopped at `time`: nothing after it will echo.
    mutating func cutReference(at time: TimeInterval) {
        let from = max(0, Int((time / Self.frameDuration).rounded())) - referenceStart
        guard from < reference.count else { return }
        reference.removeLast(reference.count - max(0, from))
    }

    /// Judges one microphone chunk (16 kHz mono) that starts at `time` seconds of the stream.
    mutating func process(_ chunk: PCMAudio, at time: TimeInterval) -> Verdict {
        let first = max(0, Int((time / Self.frameDuration).rounded()))
        let powers = Self.framePowers(chunk.samples[...])
        if mic.isEmpty { micStart = first }
        // Frames line up with the stream; a gap (a dropped chunk) is filled with silence.
        if first > micStart + mic.count { mic += [Float](repeating: 0, count: first - micStart - mic.count) }
        mic = Array(mic.prefix(max(0, first - micStart))) + powers
        trim()
        let frames = first..<(first + powers.count)
        // Frames in which an echo of the reference could be arriving.
        guard frames.contains(where: { predictedMaximum(at: $0) > 0 }) else { return .noPlayback }
        // Every 0.1 s or so is plenty: the room does not change faster.
        chunksSinceEstimate += 1
        if chunksSinceEstimate >= 4 || echoGain == nil {
            chunksSinceEstimate = 0
            estimate()
        }
        let gain = echoGain ?? 1
        var micPower: Float = 0
        var echoPower: Float = 0
        for frame in frames {
            micPower += power(mic, micStart, frame)
            echoPower += gain * predicted(at: frame)
        }
        micPower /= Float(powers.count)
        echoPower /= Float(powers.count)
        lastExcessDecibels = 10 * log10(max(micPower, 1e-12) / max(echoPower, 1e-12))
        if PCMAudio.decibels(rms: micPower.squareRoot()) < settings.floorDecibels { return .echo }
        return lastExcessDecibels > settings.margin ? .speech : .echo
    }

    /// The reference power that may reach the microphone at `frame`: at the estimated delay
    /// (and its tail), or at any delay while there is no estimate.
    private func predicted(at frame: Int) -> Float {
        guard let delay = delayFrames else { return predictedMaximum(at: frame) }
        // The direct sound within a frame of the delay, and the reverberation of what came
        // before, fading by half a frame.
        var value: Float = 0
        for lag in max(0, delay - 1)...(delay + 1) { value = max(value, power(reference, referenceStart, frame - lag)) }
        var fading: Float = 0.5
        for lag in (delay + 2)...(delay + 1 + tailFrames) {
            value = max(value, fading * power(reference, referenceStart, frame - lag))
            fading *= 0.5
        }
        return value
    }

    private func predictedMaximum(at frame: Int) -> Float {
        var value: Float = 0
        for lag in 0...(maximumLag + tailFrames) { value = max(value, power(reference, referenceStart, frame - lag)) }
        return value
    }

    /// Re-estimates the delay and the echo gain from the recent history.
    private mutating func estimate() {
        let end = micStart + mic.count
        let start = max(micStart, end - history)
        guard end > start else { return }
        func decibels(_ power: Float) -> Float { 10 * log10(max(power, 1e-10)) }
        // The reference's level over the frames that can echo into the window, once.
        let origin = start - maximumLag
        var referenceLevels = [Float](repeating: -100, count: end - origin)
        var audibleSoFar = [Int](repeating: 0, count: end - origin + 1)
        for index in referenceLevels.indices {
            referenceLevels[index] = decibels(power(reference, referenceStart, origin + index))
            audibleSoFar[index + 1] = audibleSoFar[index] + (referenceLevels[index] > -70 ? 1 : 0)
        }
        // Frames where the reference was loud enough to leave a trace at some delay.
        var active: [Int] = []
        var micLevels: [Float] = []
        for frame in start..<end where audibleSoFar[frame - origin + 1] - audibleSoFar[frame - start] > 0 {
            active.append(frame)
            micLevels.append(decibels(power(mic, micStart, frame)))
        }
        // Half a second of playback before trusting any estimate: on less, a chance
        // correlation at the wrong delay gives a gain far too small, and the agent's own
        // voice would pass for the user.
        guard active.count >= Self.evidenceFrames else { return }
        var best: (lag: Int, correlation: Float)?
        var played = [Float](repeating: 0, count: active.count)
        for lag in 0...maximumLag {
            for (index, frame) in active.enumerated() { played[index] = referenceLevels[frame - lag - origin] }
            let correlation = Self.correlation(played, micLevels)
            if correlation > (best?.correlation ?? 0.6) { best = (lag, correlation) }
        }
        if let best { delayFrames = best.lag }
        // The gain: a low percentile of the microphone-to-reference power ratio where the
        // reference is loud. Echo alone gives the room's gain; the user's speech, noise and
        // reverberation only add to the microphone, so they push the ratio up, not down.
        // Without a delay (no echo correlates, as with headphones) the loudest reference in
        // reach stands in, which errs towards a small gain: the user is heard.
        guard delayFrames != nil || active.count >= 2 * Self.evidenceFrames else { return }
        var ratios: [Float] = []
        for frame in active {
            let played = delayFrames.map { power(reference, referenceStart, frame - $0) } ?? predictedMaximum(at: frame)
            guard decibels(played) > -60 else { continue }
            ratios.append(power(mic, micStart, frame) / played)
        }
        guard ratios.count >= Self.evidenceFrames / 2 else { return }
        ratios.sort()
        echoGain = ratios[ratios.count * 3 / 10]
    }

    private mutating func trim() {
        let keep = history + maximumLag + tailFrames + 8
        if mic.count > keep {
            let drop = mic.count - keep
            mic.removeFirst(drop)
            micStart += drop
        }
        let oldest = micStart - maximumLag - tailFrames - 1
        if oldest > referenceStart {
            let drop = min(reference.count, oldest - referenceStart)
            reference.removeFirst(drop)
            referenceStart += drop
            if reference.isEmpty { referenceStart = oldest }
        }
    }

    private func power(_ frames: [Float], _ start: Int, _ frame: Int) -> Float {
        let index = frame - start
        return index >= 0 && index < frames.count ? frames[index] : 0
    }

    /// Mean power of each 8 ms frame.
    static func framePowers(_ samples: ArraySlice<Float>) -> [Float] {
        stride(from: samples.startIndex, to: samples.endIndex, by: frameLength).map { start in
            let frame = samples[start..<min(samples.endIndex, start + frameLength)]
            return frame.reduce(0) { $0 + $1 * $1 } / Float(frame.count)
        }
    }

    static func correlation(_ x: [Float], _ y: [Float]) -> Float {
        let n = Float(x.count)
        let meanX = x.reduce(0, +) / n
        let meanY = y.reduce(0, +) / n
        var covariance: Float = 0
        var varianceX: Float = 0
        var varianceY: Float = 0
        for (a, b) in zip(x, y) {
            covariance += (a - meanX) * (b - meanY)
            varianceX += (a - meanX) * (a - meanX)
            varianceY += (b - meanY) * (b - meanY)
        }
        guard varianceX > 0, varianceY > 0 else { return 0 }
        return covariance / (varianceX * varianceY).squareRoot()
    }
}
