import Foundation
import RunAnywhere
import Synchronization

/// A microphone and a loudspeaker in one room, for testing a voice app without headphones.
///
/// The microphone replays a recording of the user at real-time pace; everything played on
/// the loudspeaker comes back into it, delayed and quieter, with one reflection, the way a
/// laptop hears its own speakers. Playback takes as long as the audio (like a sound card),
/// and stopping it stops the echo too.
///
/// The agent plays into the room when its configuration has `autoPlayTTS` on.
///
/// ```swift
/// let room = EchoingRoom(recording: question, echoDelay: 0.08, echoGain: 0.3)
/// for await event in sdk.streamVoiceAgent(input: room.microphone, output: room.loudspeaker) {
///     if case .interrupted = event { print("the agent interrupted itself") }
/// }
/// ```
///
/// A user who talks over the agent is scripted by what the agent does, not by the clock, so
/// a test of barge-in holds however long the reply takes to start:
///
/// ```swift
/// let room = EchoingRoom(recording: question, interruption: stop, afterPlayback: 1.5)
/// // … run the agent, then:
/// let stoppedAfter = room.stops.first.map { $0 - room.interruptionStart! }
/// ```
public final class EchoingRoom: Sendable {
    /// The user's recording (16 kHz mono), without any echo.
    public let recording: PCMAudio
    /// From the loudspeaker to the microphone, in seconds.
    public let echoDelay: TimeInterval
    /// The echo's amplitude relative to what was played (0.3 is about −10 dB).
    public let echoGain: Float
    /// What the user says over the agent's reply, if anything.
    public let interruption: PCMAudio?
    /// Seconds the loudspeaker has been playing before the user says ``interruption``.
    public let afterPlayback: TimeInterval

    private struct State {
        /// When the microphone started, the origin of the room's timeline.
        var start: ContinuousClock.Instant?
        /// Everything the loudspeaker was given, and when.
        var played: [(at: TimeInterval, audio: PCMAudio)] = []
        /// When the loudspeaker was stopped, in seconds of the timeline.
        var stops: [TimeInterval] = []
        /// Where the interruption began, once said.
        var interruptionStart: TimeInterval?

        /// Whether a buffer is playing at `time` with at least `remaining` seconds of it to go.
        func playing(at time: TimeInterval, remaining: TimeInterval) -> Bool {
            played.contains { item in
                let end = item.at + item.audio.duration
                return item.at <= time && time + remaining <= end && !stops.contains { $0 > item.at && $0 <= time }
            }
        }
    }

    private let state = Mutex(State())
    private static let rate = 16_000

    /// A room replaying `recording` (any rate; mixed at 16 kHz mono).
    ///
    /// - Parameters:
    ///   - recording: What the user says, with the silences between; the microphone ends with it.
    ///   - echoDelay: From the loudspeaker to the microphone, in seconds.
    ///   - echoGain: The echo's amplitude relative to what was played; 0 is headphones.
    ///   - interruption: What the user says over the reply: it starts once the loudspeaker has
    ///     been playing for `afterPlayback` seconds, at a moment when the buffer playing has at
    ///     least half a second to go, so it lands in the middle of the agent's speech. The
    ///     microphone then goes on until two seconds after it, past the recording if need be.
    ///   - afterPlayback: Seconds from the start of playback to the interruption.
    public init(
        recording: PCMAudio,
        echoDelay: TimeInterval = 0.08,
        echoGain: Float = 0.3,
        interruption: PCMAudio? = nil,
        afterPlayback: TimeInterval = 1.5
    ) {
        self.recording = recording.speechInput()
        self.echoDelay = max(0, echoDelay)
        self.echoGain = echoGain
        self.interruption = interruption?.speechInput()
        self.afterPlayback = afterPlayback
    }

    /// The microphone: the recording plus the echo, in real time.
    public var microphone: any AudioInput { Microphone(room: self) }

    /// The loudspeaker: plays in real time and feeds the echo.
    public var loudspeaker: any AudioOutput { Loudspeaker(room: self) }

    /// Seconds of the room's timeline at `instant`.
    private static func time(_ instant: ContinuousClock.Instant, _ state: State) -> TimeInterval {
        state.start.map { $0.duration(to: instant).seconds } ?? 0
    }

    /// Everything the loudspeaker was given, with when it started, in seconds of the recording.
    public var played: [(at: TimeInterval, audio: PCMAudio)] { state.withLock { $0.played } }

    /// When the loudspeaker was stopped, in seconds of the room's timeline (the microphone's).
    public var stops: [TimeInterval] { state.withLock { $0.stops } }

    /// Where ``interruption`` began in the room's timeline, once the user has said it.
    public var interruptionStart: TimeInterval? { state.withLock { $0.interruptionStart } }

    /// Whether the user starts the interruption at `time`; if so, it is recorded as begun there.
    fileprivate func startsInterruption(at time: TimeInterval) -> Bool {
        guard interruption != nil else { return false }
        return state.withLock { state in
            guard state.interruptionStart == nil, let first = state.played.first?.at,
                time - first >= afterPlayback, state.playing(at: time, remaining: 0.5)
            else { return false }
            state.interruptionStart = time
            return true
        }
    }

    /// Starts playing `audio` now; returns when, in the room's timeline.
    ///
    /// The time is taken under the lock the microphone reads the playback under, so no chunk
    /// is ever recorded without the echo of something already playing, however busy the
    /// machine; the microphone works out the echo itself (resampling takes time).
    fileprivate func startPlaying(_ audio: PCMAudio) {
        state.withLock { state in state.played.append((Self.time(.now, state), audio)) }
    }

    /// Playback stopped now: the echo of what would have followed is gone.
    fileprivate func stopPlaying() {
        state.withLock { state in state.stops.append(Self.time(.now, state)) }
    }

    fileprivate var stopCount: Int { state.withLock { $0.stops.count } }

    private struct Microphone: AudioInput {
        let room: EchoingRoom

        func chunks(duration: TimeInterval) -> AsyncThrowingStream<PCMAudio, any Error> {
            capturedChunks(duration: duration).mapped(\.audio)
        }

        /// Each chunk is dated on the room's timeline, as a sound card's clock would date it.
        func capturedChunks(duration: TimeInterval) -> AsyncThrowingStream<CapturedAudio, any Error> {
            let room = self.room
            let frames = max(1, Int(duration * Double(EchoingRoom.rate)))
            return AsyncThrowingStream { continuation in
                let task = Task {
                    let start = ContinuousClock.now
                    room.state.withLock { $0.start = start }
                    var offset = 0
                    var samples = room.recording.samples
                    var echo = Echo(room: room)
                    while offset < samples.count, !Task.isCancelled {
                        let end = min(samples.count, offset + frames)
                        // A chunk is available once all of it has been "recorded".
                        let captured = start.advanced(by: .seconds(Double(end) / Double(EchoingRoom.rate)))
                        try? await Task.sleep(until: captured, clock: .continuous)
                        var chunk = Array(samples[offset..<end])
                        echo.mix(into: &chunk, from: offset)
                        continuation.yield(
                            CapturedAudio(
                                audio: PCMAudio(samples: chunk, sampleRate: EchoingRoom.rate),
                                end: captured
                            )
                        )
                        offset = end
                        if let interruption = room.interruption,
                            room.startsInterruption(at: Double(end) / Double(EchoingRoom.rate))
                        {
                            let needed = end + interruption.samples.count + 2 * EchoingRoom.rate
                            if samples.count < needed {
                                samples += [Float](repeating: 0, count: needed - samples.count)
                            }
                            for (index, sample) in interruption.samples.enumerated() { samples[end + index] += sample }
                        }
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
    }

    /// What the microphone hears of the loudspeaker: each buffer from `echoDelay` after it
    /// started, with a reflection 30 ms later at a third of the level, up to the stop that
    /// ended it.
    private struct Echo {
        let room: EchoingRoom
        /// The buffers played so far at 16 kHz, resampled once each.
        var samples: [[Float]] = []

        mutating func mix(into chunk: inout [Float], from offset: Int) {
            let (played, stops) = room.state.withLock { ($0.played, $0.stops) }
            while samples.count < played.count { samples.append(played[samples.count].audio.speechInput().samples) }
            let rate = Double(EchoingRoom.rate)
            for (item, audio) in zip(played, samples) {
                let stop = stops.first { $0 > item.at }
                for (delay, gain) in [(room.echoDelay, room.echoGain), (room.echoDelay + 0.03, room.echoGain / 3)] {
                    let first = Int((item.at + delay) * rate)
                    let cut = stop.map { Int(($0 + delay) * rate) } ?? Int.max
                    let (lower, upper) = (max(offset, first), min(offset + chunk.count, first + audio.count, cut))
                    guard lower < upper else { continue }
                    for index in lower..<upper { chunk[index - offset] += gain * audio[index - first] }
                }
            }
        }
    }

    private struct Loudspeaker: AudioOutput {
        let room: EchoingRoom

        func play(_ buffer: PCMAudio) async throws(SDKException) {
            let started = ContinuousClock.now
            let stops = room.stopCount
            room.startPlaying(buffer)
            // 10 ms steps: a stop lands within one step.
            while started.duration(to: .now).seconds < buffer.duration {
                if room.stopCount != stops || Task.isCancelled { return }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }

        func stop() async {
            room.stopPlaying()
        }
    }
}
