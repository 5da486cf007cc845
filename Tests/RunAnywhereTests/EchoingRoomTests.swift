import Foundation
import RunAnywhere
import RunAnywhereTesting
import Testing

/// The test room itself: its echo and its scripted user follow what the loudspeaker does.
@Suite("Echoing room")
struct EchoingRoomTests {
    static let rate = 16_000

    /// A constant tone, easy to find in the microphone.
    static func tone(seconds: Double, level: Float) -> AudioBuffer {
        AudioBuffer(
            samples: (0..<Int(seconds * Double(rate))).map { level * sin(Float($0) * 0.2) },
            sampleRate: rate
        )
    }

    /// Reads the whole microphone, playing `reply` on the loudspeaker once the microphone
    /// has delivered `playAt` seconds: the microphone's samples, in order.
    static func record(_ room: EchoingRoom, reply: AudioBuffer, playAt: Double) async throws -> [Float] {
        var heard: [Float] = []
        var playback: Task<Void, Never>?
        for try await chunk in room.microphone.chunks(duration: 0.032) {
            heard += chunk.samples
            if playback == nil, Double(heard.count) / Double(rate) >= playAt {
                let loudspeaker = room.loudspeaker
                playback = Task { try? await loudspeaker.play(reply) }
            }
        }
        await playback?.value
        return heard
    }

    @Test("The user interrupts once the loudspeaker has played long enough, in the middle of a buffer")
    func interruptionFollowsPlayback() async throws {
        let interruption = Self.tone(seconds: 0.3, level: 0.5)
        let room = EchoingRoom(
            recording: .silence(duration: 3, sampleRate: Self.rate),
            echoGain: 0,
            interruption: interruption,
            afterPlayback: 0.5
        )
        let heard = try await Self.record(room, reply: Self.tone(seconds: 2, level: 0.1), playAt: 0.3)
        let playedAt = try #require(room.played.first?.at)
        let said = try #require(room.interruptionStart)
        // Whenever the loop let playback start, the user waits for half a second of it and
        // speaks while at least half a second of it is still to come.
        #expect(said - playedAt >= 0.5)
        #expect(said + 0.5 <= playedAt + 2)
        // The microphone carries it at that point, and runs on two seconds past it.
        let first = try #require(heard.firstIndex { abs($0) > 0.01 })
        #expect(abs(Double(first) / Double(Self.rate) - said) < 0.01)
        #expect(Double(heard.count) / Double(Self.rate) >= said + 0.3 + 2 - 0.04)
    }

    @Test("A room without an interruption, or whose loudspeaker never plays, replays the recording only")
    func noInterruptionWithoutPlayback() async throws {
        let room = EchoingRoom(
            recording: .silence(duration: 0.5, sampleRate: Self.rate),
            interruption: Self.tone(seconds: 0.3, level: 0.5)
        )
        var count = 0
        for try await chunk in room.microphone.chunks(duration: 0.032) {
            count += chunk.samples.count
            #expect(chunk.samples.allSatisfy { $0 == 0 })
        }
        #expect(count == Self.rate / 2)
        #expect(room.interruptionStart == nil)
        #expect(room.stops.isEmpty)
    }

    @Test("Stopping the loudspeaker is dated in the room's timeline and silences the echo that would follow")
    func stopIsDated() async throws {
        let room = EchoingRoom(recording: .silence(duration: 1.5, sampleRate: Self.rate), echoDelay: 0, echoGain: 1)
        let loudspeaker = room.loudspeaker
        var heard: [Float] = []
        var playback: Task<Void, Never>?
        for try await chunk in room.microphone.chunks(duration: 0.032) {
            heard += chunk.samples
            let now = Double(heard.count) / Double(Self.rate)
            if playback == nil {
                playback = Task { try? await loudspeaker.play(Self.tone(seconds: 1.2, level: 0.5)) }
            } else if room.stops.isEmpty, now >= 0.6 {
                await loudspeaker.stop()
            }
        }
        await playback?.value
        let stop = try #require(room.stops.first)
        #expect(stop >= 0.55 && stop < 1.2)
        // The echo ends where playback stopped (within the chunk being recorded then).
        let last = try #require(heard.lastIndex { abs($0) > 0.01 })
        #expect(abs(Double(last) / Double(Self.rate) - stop) < 0.05)
    }
}
