#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    func chunks(duration: TimeInterval) -> AsyncThrowingStream<PCMAudio, any Error>

    /// The same chunks, each with the instant its last sample was captured.
    ///
    /// The default stamps a chunk when ``chunks(duration:)`` yields it, which is late by
    /// however long the chunk waited; inputs with a capture clock give the true instant.
    func capturedChunks(duration: TimeInterval) -> AsyncThrowingStream<CapturedAudio, any Error>
}

extension AudioInput {
    /// Stamps each chunk of ``chunks(duration:)`` as it arrives.
    public func capturedChunks(duration: TimeInterval) -> AsyncThrowingStream<CapturedAudio, any Error> {
        chunks(duration: duration).mapped { CapturedAudio(audio: $0, end: .now) }
    }
}
