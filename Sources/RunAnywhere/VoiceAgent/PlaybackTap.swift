import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An ``AudioOutput`` in front of the session's real output that remembers what was played
/// and when, so the echo gate knows what the microphone may hear of it.
final class PlaybackTap: AudioOutput {
    /// What happened to the output since it was last asked.
    enum Entry: Sendable {
        /// `audio` started playing at `at`.
        case played(PCMAudio, at: ContinuousClock.Instant)
        /// Playback was stopped at `at`.
        case stopped(at: ContinuousClock.Instant)
    }

    private let output: any AudioOutput
    private let entries = Mutex<[Entry]>([])

    init(_ output: any AudioOutput) {
        self.output = output
    }

    func play(_ buffer: PCMAudio) async throws(SDKException) {
        entries.withLock { $0.append(.played(buffer, at: .now)) }
        try await output.play(buffer)
    }

    func stop() async {
        entries.withLock { $0.append(.stopped(at: .now)) }
        await output.stop()
    }

    /// Everything since the last call, in order.
    func drain() -> [Entry] {
        entries.withLock { entries in
            defer { entries = [] }
            return entries
        }
    }
}
