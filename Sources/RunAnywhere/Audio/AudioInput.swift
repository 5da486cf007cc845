import Foundation

/// Something audio comes from: a microphone or a recording.
public protocol AudioInput: Sendable {
    /// The audio as it arrives, in chunks of about `duration` seconds. Ending the iteration
    /// stops the capture.
    func chunks(duration: TimeInterval) -> AsyncThrowingStream<AudioBuffer, any Error>
}
