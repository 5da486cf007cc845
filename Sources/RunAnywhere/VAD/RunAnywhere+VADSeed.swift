#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The original SDK's name for the options of a voice-activity call: ``VADConfiguration``.
public typealias VADOptions = VADConfiguration

extension VADResult {
    /// The original SDK's name for ``isSpeech``.
    public var isSpeechDetected: Bool { isSpeech }
    /// The original SDK's name for ``energyDecibels``.
    public var energyLevel: Float { energyDecibels }
}

extension RunAnywhereSDK {
    /// The original SDK's shape of ``detectVoiceActivity(_:sampleRate:)``: 16 kHz 16-bit PCM,
    /// with `options` (when given) applied first as the detector's configuration.
    public func detectVoiceActivity(_ audioData: Data, options: VADOptions?) async throws(SDKException) -> VADResult {
        if let options { try await configureVAD(options) }
        return try await detectVoiceActivity(audioData, sampleRate: 16_000)
    }

    /// The original SDK's stream of verdicts: one ``VADResult`` per chunk of 16 kHz 16-bit
    /// PCM in `audio`; an error ends the stream (and is logged).
    public func streamVAD(audio: AsyncStream<Data>) -> AsyncStream<VADResult> {
        AsyncStream { continuation in
            let task = Task {
                do {
                    for await chunk in audio {
                        continuation.yield(try await self.detectVoiceActivity(chunk, sampleRate: 16_000))
                    }
                } catch {
                    SDKLogger(category: "VAD").error("The stream ended on an error: \(error)")
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

extension RunAnywhere {
    /// The original SDK's shape of ``detectVoiceActivity(_:sampleRate:)``.
    ///
    /// Calls ``RunAnywhereSDK/detectVoiceActivity(_:options:)`` on the shared instance.
    public static func detectVoiceActivity(
        _ audioData: Data,
        options: VADOptions?
    ) async throws(SDKException) -> VADResult {
        try await sdk().detectVoiceActivity(audioData, options: options)
    }

    /// The original SDK's stream of verdicts, one per chunk.
    ///
    /// Calls ``RunAnywhereSDK/streamVAD(audio:)`` on the shared instance; without one the
    /// stream ends at once (and the error is logged).
    public static func streamVAD(audio: AsyncStream<Data>) -> AsyncStream<VADResult> {
        do {
            return try sdk().streamVAD(audio: audio)
        } catch {
            SDKLogger(category: "VAD").error("The stream ended on an error: \(error)")
            return AsyncStream { $0.finish() }
        }
    }
}
