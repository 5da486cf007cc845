import Foundation

extension RunAnywhere {
    /// Loads a voice-activity model (e.g. `silero-vad`). Without one, an energy detector answers.
    public static func loadVADModel(_ id: String) async throws(SDKException) {
        try await runtime().vad.load(id)
    }

    /// Unloads the voice-activity model; the energy detector answers from now on.
    public static func unloadVADModel() async throws(SDKException) {
        try await runtime().vad.unload()
    }

    /// The loaded voice-activity model, if any.
    public static var currentVADModel: ModelInfo? {
        get async { try? await runtime().vad.currentModel }
    }

    /// Sets thresholds and minimum durations for everything that follows.
    public static func configureVAD(_ configuration: VADConfiguration) async throws(SDKException) {
        try await runtime().vad.configure(configuration)
    }

    /// The thresholds and durations in use.
    public static func vadConfiguration() async throws(SDKException) -> VADConfiguration {
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
    public static func detectVoiceActivity(_ chunk: AudioBuffer) async throws(SDKException) -> VADResult {
        try await runtime().vad.process(chunk)
    }

    /// ``detectVoiceActivity(_:)`` over raw 16-bit little-endian mono PCM at `sampleRate`.
    public static func detectVoiceActivity(_ pcm: Data, sampleRate: Int = 16_000) async throws(SDKException) -> VADResult {
        try await detectVoiceActivity(AudioBuffer(pcm16: pcm, sampleRate: sampleRate))
    }

    /// Speech starts and ends while `audio` arrives; an open segment is closed when the
    /// input ends. The stream starts from a fresh state.
    public static func streamVAD(_ audio: AsyncStream<AudioBuffer>) -> AsyncThrowingStream<SpeechActivityEvent, any Error> {
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

    /// Forgets the stream so far; timestamps restart at 0.
    public static func resetVAD() async throws(SDKException) {
        try await runtime().vad.reset()
    }

    /// The stretches of speech in a whole recording.
    public static func detectSpeechSegments(in audio: AudioBuffer) async throws(SDKException) -> [SpeechSegment] {
        try await runtime().vad.segments(in: audio)
    }
}
