#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Somewhere audio goes: a sound card, a file, a recorder in a test.
///
/// `RunAnywhere.speak` and the voice agent play through this protocol, so the same code
/// runs on a desktop with speakers, on a headless server writing files, and in tests.
///
/// ```swift
/// let file = WAVFileAudioOutput(url: URL(fileURLWithPath: "answer.wav"))
/// try await RunAnywhere.speak("Hello there.", output: file)
/// ```
public protocol AudioOutput: Sendable {
    /// Plays (or stores) `buffer` and returns once it is done, or once ``stop()`` is called.
    func play(_ buffer: PCMAudio) async throws(SDKException)
    /// Stops playback as soon as possible; a `play` in flight returns early.
    func stop() async
}
