#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An ``AudioInput`` that replays a recording, so every voice behaviour can be tested
/// without a microphone.
public struct WAVFileAudioInput: AudioInput {
    /// How fast the recording is replayed.
    public enum Pace: String, Sendable, Codable {
        /// Chunks arrive as a microphone would deliver them.
        case realTime
        /// Chunks arrive as fast as the consumer takes them.
        case asFastAsPossible
    }

    /// The audio replayed.
    public let audio: PCMAudio
    /// How fast it is replayed.
    public let pace: Pace

    /// Replays a WAV file.
    public init(url: URL, pace: Pace = .realTime) throws(SDKException) {
        self.init(audio: try WAVFile.read(contentsOf: url), pace: pace)
    }

    /// Replays a buffer.
    public init(audio: PCMAudio, pace: Pace = .realTime) {
        self.audio = audio
        self.pace = pace
    }

    /// The recording in chunks of `duration` seconds (the last may be shorter), at the chosen pace.
    public func chunks(duration: TimeInterval) -> AsyncThrowingStream<PCMAudio, any Error> {
        capturedChunks(duration: duration).mapped(\.audio)
    }

    /// The chunks of ``chunks(duration:)``; in real time, each is dated when its last sample
    /// would have been recorded, however late the reader takes it.
    public func capturedChunks(duration: TimeInterval) -> AsyncThrowingStream<CapturedAudio, any Error> {
        let pieces = audio.chunks(duration: duration)
        let pace = self.pace
        return AsyncThrowingStream { continuation in
            let task = Task {
                let start = ContinuousClock.now
                var elapsed: TimeInterval = 0
                for piece in pieces {
                    if Task.isCancelled { break }
                    elapsed += piece.duration
                    var end = ContinuousClock.now
                    if pace == .realTime {
                        // A chunk is available once all of it has been "recorded".
                        end = start.advanced(by: .seconds(elapsed))
                        try? await Task.sleep(until: end, clock: .continuous)
                    }
                    continuation.yield(CapturedAudio(audio: piece, end: end))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
