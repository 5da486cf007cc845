import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An ``AudioOutput`` that keeps everything "played", with the time each buffer started,
/// so tests and replays can check what the user would have heard and when.
///
/// In real-time mode `play` takes as long as the audio lasts (like a sound card), and
/// ``stop()`` cuts the buffer where playback had got to.
public final class AudioRecorderOutput: AudioOutput {
    /// One buffer as it was played.
    public struct Played: Sendable {
        /// When playback of the buffer began.
        public var startedAt: ContinuousClock.Instant
        /// The audio actually played (cut short by a stop).
        public var audio: PCMAudio
        /// Whether a stop cut it short.
        public var interrupted: Bool
    }

    /// Whether `play` lasts as long as the audio.
    public let realTime: Bool
    private let state = Mutex<(played: [Played], stops: [ContinuousClock.Instant], generation: Int)>(([], [], 0))

    /// Creates a recorder.
    public init(realTime: Bool = true) {
        self.realTime = realTime
    }

    /// Everything played so far.
    public var played: [Played] { state.withLock { $0.played } }

    /// When ``stop()`` was called.
    public var stops: [ContinuousClock.Instant] { state.withLock { $0.stops } }

    /// All played audio, joined.
    public var audio: PCMAudio? {
        let played = self.played
        guard var joined = played.first?.audio else { return nil }
        for item in played.dropFirst() { joined.append(item.audio) }
        return joined
    }

    /// Records `buffer`; in real-time mode, returns after its duration or at a stop.
    public func play(_ buffer: PCMAudio) async throws(SDKException) {
        let start = ContinuousClock.now
        let generation = state.withLock { $0.generation }
        guard realTime else {
            state.withLock { $0.played.append(Played(startedAt: start, audio: buffer, interrupted: false)) }
            return
        }
        var elapsed = 0.0
        var stopped = false
        // 10 ms steps: a stop lands within one step.
        while elapsed < buffer.duration {
            if state.withLock({ $0.generation }) != generation || Task.isCancelled {
                stopped = true
                break
            }
            try? await Task.sleep(for: .milliseconds(10))
            elapsed = start.duration(to: .now).milliseconds / 1000
        }
        let played = stopped ? buffer.slice(from: 0, to: min(buffer.duration, elapsed)) : buffer
        state.withLock { $0.played.append(Played(startedAt: start, audio: played, interrupted: stopped)) }
    }

    /// Records the time of the stop; in real-time mode the buffer being played is cut there.
    public func stop() async {
        state.withLock {
            $0.generation += 1
            $0.stops.append(.now)
        }
    }
}
