#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// Loads a voice-activity model (e.g. `silero-vad`). Without one, an energy detector answers.
    public func loadVADModel(_ id: String) async throws(SDKException) {
        try await runtime().vad.load(id)
    }

    /// Unloads the voice-activity model; the energy detector answers from now on.
    public func unloadVADModel() async throws(SDKException) {
        try await runtime().vad.unload()
    }

    /// The loaded voice-activity model, if any.
    public var currentVADModel: ModelInfo? {
        get async { try? await runtime().vad.currentModel }
    }

    /// How long each frame the detector judges is, in seconds: the loaded VAD model's (Silero:
    /// 512 samples at 16 kHz, 0.032 s), else the energy detector's, which
    /// ``VADConfiguration/frameLength`` sets (rounded to whole samples). Unlike
    /// ``VADConfiguration/frameLengthSeconds``, this is the frame actually in use.
    public var vadFrameLength: TimeInterval? {
        get async { try? await runtime().vad.frameDuration }
    }

    /// Sets thresholds, minimum durations and the energy detector's frame for everything that follows.
    public func configureVAD(_ configuration: VADConfiguration) async throws(SDKException) {
        try await runtime().vad.configure(configuration)
    }

    /// The thresholds, durations and frame length in use.
    public func vadConfiguration() async throws(SDKException) -> VADConfiguration {
        try await runtime().vad.currentConfiguration
    }

    /// Feeds the next chunk of a live stream (any rate; converted to 16 kHz mono).
    ///
    /// Timestamps in the result's events count from the first chunk after the last
    /// ``resetVAD()``.
    ///
    /// ```swift
    /// for chunk in audio.chunks(duration: 0.032) {
    ///     let result = try await RunAnywhere.detectVoiceActivity(chunk)
    ///     for event in result.events { print(event.kind, event.time) }
    /// }
    /// ```
    public func detectVoiceActivity(_ chunk: PCMAudio) async throws(SDKException) -> VADResult {
        try await runtime().vad.process(chunk)
    }

    /// ``detectVoiceActivity(_:)`` over raw 16-bit little-endian mono PCM at `sampleRate`.
    public func detectVoiceActivity(_ pcm: Data, sampleRate: Int = 16_000) async throws(SDKException) -> VADResult {
        try await detectVoiceActivity(PCMAudio(pcm16: pcm, sampleRate: sampleRate))
    }

    /// Speech starts and ends while `audio` arrives; an open segment is closed when the
    /// input ends. The stream starts from a fresh state.
    public func streamVAD(_ audio: AsyncStream<PCMAudio>) -> AsyncThrowingStream<SpeechActivityEvent, any Error> {
        let vad: VADCapability
        do { vad = try runtime().vad } catch { return AsyncThrowingStream { $0.finish(throwing: error) } }
        let (stream, continuation) = AsyncThrowingStream<SpeechActivityEvent, any Error>.makeStream()
        let task = Task {
            do {
                await vad.reset()
                for await chunk in audio {
                    if Task.isCancelled { break }
                    for event in try await vad.process(chunk).events { continuation.yield(event) }
                }
                if let last = await vad.finish() { continuation.yield(last) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Forgets the stream so far; ``SpeechActivityEvent/time`` restarts at 0.
    public func resetVAD() async throws(SDKException) {
        try await runtime().vad.reset()
    }

    /// The stretches of speech in a whole recording.
    public func detectSpeechSegments(in audio: PCMAudio) async throws(SDKException) -> [SpeechSegment] {
        try await runtime().vad.segments(in: audio)
    }
}

extension RunAnywhere {
    /// Loads a voice-activity model (e.g. `silero-vad`). Without one, an energy detector answers.
    ///
    /// Calls ``RunAnywhereSDK/loadVADModel(_:)`` on the shared instance.
    public static func loadVADModel(_ id: String) async throws(SDKException) {
        try await sdk().loadVADModel(id)
    }

    /// Unloads the voice-activity model; the energy detector answers from now on.
    ///
    /// Calls ``RunAnywhereSDK/unloadVADModel()`` on the shared instance.
    public static func unloadVADModel() async throws(SDKException) {
        try await sdk().unloadVADModel()
    }

    /// Sets thresholds, minimum durations and the energy detector's frame for everything that follows.
    ///
    /// Calls ``RunAnywhereSDK/configureVAD(_:)`` on the shared instance.
    public static func configureVAD(_ configuration: VADConfiguration) async throws(SDKException) {
        try await sdk().configureVAD(configuration)
    }

    /// The thresholds, durations and frame length in use.
    ///
    /// Calls ``RunAnywhereSDK/vadConfiguration()`` on the shared instance.
    public static func vadConfiguration() async throws(SDKException) -> VADConfiguration {
        try await sdk().vadConfiguration()
    }

    /// Feeds the next chunk of a live stream (any rate; converted to 16 kHz mono).
    ///
    /// Calls ``RunAnywhereSDK/detectVoiceActivity(_:)`` on the shared instance.
    public static func detectVoiceActivity(_ chunk: PCMAudio) async throws(SDKException) -> VADResult {
        try await sdk().detectVoiceActivity(chunk)
    }

    /// ``detectVoiceActivity(_:)`` over raw 16-bit little-endian mono PCM at `sampleRate`.
    ///
    /// Calls ``RunAnywhereSDK/detectVoiceActivity(_:sampleRate:)`` on the shared instance.
    public static func detectVoiceActivity(
        _ pcm: Data,
        sampleRate: Int = 16_000
    ) async throws(SDKException) -> VADResult {
        try await sdk().detectVoiceActivity(pcm, sampleRate: sampleRate)
    }

    /// Forgets the stream so far; `SpeechActivityEvent.time` restarts at 0.
    ///
    /// Calls ``RunAnywhereSDK/resetVAD()`` on the shared instance.
    public static func resetVAD() async throws(SDKException) {
        try await sdk().resetVAD()
    }

    /// The stretches of speech in a whole recording.
    ///
    /// Calls ``RunAnywhereSDK/detectSpeechSegments(in:)`` on the shared instance.
    public static func detectSpeechSegments(in audio: PCMAudio) async throws(SDKException) -> [SpeechSegment] {
        try await sdk().detectSpeechSegments(in: audio)
    }

    /// The shared instance's loaded voice-activity model, if any.
    public static var currentVADModel: ModelInfo? {
        get async { await shared?.currentVADModel }
    }

    /// Speech starts and ends while `audio` arrives.
    ///
    /// Calls ``RunAnywhereSDK/streamVAD(_:)`` on the shared instance.
    public static func streamVAD(
        _ audio: AsyncStream<PCMAudio>
    ) -> AsyncThrowingStream<SpeechActivityEvent, any Error> {
        do {
            return try sdk().streamVAD(audio)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
    }
}
