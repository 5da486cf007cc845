#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// Listens to `input` for the wake phrases: one detection each time one is said.
    ///
    /// The engine is the registered keyword spotter (the PocketSphinx module), or, without
    /// one, the loaded speech-to-text model reading a sliding window. The stream ends when
    /// the input does, or with a typed error (an invalid configuration, a phrase the engine
    /// cannot spot, no engine at all).
    ///
    /// ```swift
    /// let wake = WakeWordConfiguration(phrases: ["hey computer"])
    /// for try await detection in sdk.startWakeWord(input: microphone, configuration: wake) {
    ///     print("\(detection.phrase) at \(detection.time) s")
    /// }
    /// ```
    public func startWakeWord(
        input: any AudioInput,
        configuration: WakeWordConfiguration
    ) -> AsyncThrowingStream<WakeWordDetection, any Error> {
        let capability: WakeWordCapability
        do { capability = try runtime().wakeWord } catch { return AsyncThrowingStream { $0.finish(throwing: error) } }
        let (stream, continuation) = AsyncThrowingStream<WakeWordDetection, any Error>.makeStream()
        let task = Task {
            do {
                let spotter = try await capability.spotter(configuration)
                for try await chunk in input.chunks(duration: 0.1) {
                    if Task.isCancelled { break }
                    for detection in try await spotter.process(chunk) { continuation.yield(detection) }
                }
                if !Task.isCancelled {
                    for detection in try await spotter.finish() { continuation.yield(detection) }
                }
                continuation.finish()
            } catch {
                continuation.finish(
                    throwing: SDKException.wrap(error, as: .internalError, "Wake-word listening failed")
                )
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Every wake phrase said in a recording, in order.
    public func detectWakeWords(
        in audio: PCMAudio,
        configuration: WakeWordConfiguration
    ) async throws(SDKException) -> [WakeWordDetection] {
        let spotter = try await runtime().wakeWord.spotter(configuration)
        var detections: [WakeWordDetection] = []
        for chunk in audio.mono().chunks(duration: 0.5) { detections += try await spotter.process(chunk) }
        return detections + (try await spotter.finish())
    }

    /// The engine that would spot wake words now (`pocketsphinx`, `transcript`), or nil when
    /// there is none: no keyword spotter registered and no speech-to-text model loaded.
    public var wakeWordEngine: String? {
        get async { try? await runtime().wakeWord.engine }
    }
}

extension RunAnywhere {
    /// Listens to `input` for the wake phrases.
    ///
    /// Calls ``RunAnywhereSDK/startWakeWord(input:configuration:)`` on the shared instance.
    public static func startWakeWord(
        input: any AudioInput,
        configuration: WakeWordConfiguration
    ) -> AsyncThrowingStream<WakeWordDetection, any Error> {
        do {
            return try sdk().startWakeWord(input: input, configuration: configuration)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
    }

    /// Every wake phrase said in a recording.
    ///
    /// Calls ``RunAnywhereSDK/detectWakeWords(in:configuration:)`` on the shared instance.
    public static func detectWakeWords(
        in audio: PCMAudio,
        configuration: WakeWordConfiguration
    ) async throws(SDKException) -> [WakeWordDetection] {
        try await sdk().detectWakeWords(in: audio, configuration: configuration)
    }

    /// The engine that would spot wake words now, if any.
    public static var wakeWordEngine: String? {
        get async { await shared?.wakeWordEngine }
    }
}
