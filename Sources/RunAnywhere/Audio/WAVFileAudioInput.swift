import Foundation

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
    public let audio: AudioBuffer
    /// How fast it is replayed.
    public let pace: Pace

    /// Replays a WAV file.
    public init(url: URL, pace: Pace = .realTime) throws(SDKException) {
        self.init(audio: try WAVFile.read(contentsOf: url), pace: pace)
    }

    /// Replays a buffer.
    public init(audio: AudioBuffer, pace: Pace = .realTime) {
        self.audio = audio
        self.pace = pace
    }

    /// The recording in chunks of `duration` seconds (the last may be shorter), at the chosen pace.
    public func chunks(duration: TimeInterval) -> AsyncThrowingStream<AudioBuffer, any Error> {
        let pieces = audio.chunks(duration: duration)
        let pace = self.pace
        return AsyncThrowingStream { continuation in
            let task = Task {
                let start = ContinuousClock.now
                var elapsed: TimeInterval = 0
                for piece in pieces {
                    if Task.isCancelled { break }
                    elapsed += piece.duration
                    if pace == .realTime {
                        // A chunk is available once all of it has been "recorded".
                        try? await Task.sleep(until: start.advanced(by: .seconds(elapsed)), clock: .continuous)
                    }
                    continuation.yield(piece)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
