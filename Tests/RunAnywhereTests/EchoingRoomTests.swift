import Foundation
import RunAnywhere
import RunAnywhereTesting
import Testing

/// The test room itself. How its echo and its scripted user follow the loudspeaker is
/// real-time behaviour, checked by the barge-in tests on the real engines (which run one at
/// a time); here, only what holds whatever the machine's load.
@Suite("Echoing room")
struct EchoingRoomTests {
    static let rate = 16_000

    /// A constant tone, easy to find in the microphone.
    static func tone(seconds: Double, level: Float) -> PCMAudio {
        PCMAudio(
            samples: (0..<Int(seconds * Double(rate))).map { level * sin(Float($0) * 0.2) },
            sampleRate: rate
        )
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
}
