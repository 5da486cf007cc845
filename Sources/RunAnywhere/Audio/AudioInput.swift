import Foundation

/// Something audio comes from: a microphone or a recording.
///
/// An input gives its audio as chunks. Inputs that know when each chunk was captured also
/// implement ``capturedChunks(duration:)``; the voice agent uses those instants to line the
/// microphone up with what the loudspeaker played, which the echo gate needs to within a few
/// milliseconds. An input that does not know stamps each chunk when it hands it over.
///
/// ```swift
/// for try await chunk in ALSAAudioInput().capturedChunks(duration: 0.032) {
///     print(chunk.audio.duration, chunk.end)
/// }
/// ```
public protocol AudioInput: Sendable {
    /// The audio as it arrives, in chunks of about `duration` seconds. Ending the iteration
    /// stops the capture.
    func chunks(duration: TimeInterval) -> AsyncThrowingStream<AudioBuffer, any Error>

    /// The same chunks, each with the instant its last sample was captured.
    ///
    /// The default stamps a chunk when ``chunks(duration:)`` yields it, which is late by
    /// however long the chunk waited; inputs with a capture clock give the true instant.
    func capturedChunks(duration: TimeInterval) -> AsyncThrowingStream<CapturedAudio, any Error>
}

/// A chunk of audio from an ``AudioInput`` and when it was captured.
public struct CapturedAudio: Sendable {
    /// The samples.
    public var audio: AudioBuffer
    /// When the chunk's last sample was captured.
    public var end: ContinuousClock.Instant

    /// A chunk whose last sample was captured at `end`.
    public init(audio: AudioBuffer, end: ContinuousClock.Instant) {
        self.audio = audio
        self.end = end
    }
}

extension AudioInput {
    /// Stamps each chunk of ``chunks(duration:)`` as it arrives.
    public func capturedChunks(duration: TimeInterval) -> AsyncThrowingStream<CapturedAudio, any Error> {
        chunks(duration: duration).mapped { CapturedAudio(audio: $0, end: .now) }
    }
}

extension AsyncThrowingStream where Failure == any Error {
    /// This stream with `transform` applied to each element; ending the iteration of the
    /// result ends this one.
    package func mapped<T: Sendable>(
        _ transform: @escaping @Sendable (Element) -> T
    ) -> AsyncThrowingStream<T, any Error>
    where Element: Sendable {
        let source = self
        return AsyncThrowingStream<T, any Error> { continuation in
            let task = Task {
                do {
                    for try await element in source {
                        continuation.yield(transform(element))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
