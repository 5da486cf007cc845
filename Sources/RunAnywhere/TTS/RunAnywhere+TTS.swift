#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// Loads a neural voice (e.g. `piper-en-us-joe-medium`), unloading the previous one.
    public func loadTTSModel(_ id: String) async throws(SDKException) {
        try await runtime().tts.load(id)
    }

    /// Unloads the neural voice; the system voice answers from now on.
    public func unloadTTSModel() async throws(SDKException) {
        try await runtime().tts.unload()
    }

    /// The loaded neural voice model, if any.
    public var currentTTSModel: ModelInfo? {
        get async { try? await runtime().tts.currentModel }
    }

    /// Every voice that can speak now: the loaded and downloaded voice models and the system voices.
    public func availableTTSVoices() async throws(SDKException) -> [TTSVoice] {
        try await runtime().tts.voices()
    }

    /// Synthesizes `text`. Long text is spoken sentence by sentence and joined.
    ///
    /// ```swift
    /// let output = try await RunAnywhere.synthesize("The kitchen lights are on.")
    /// try output.writeWAV(to: URL(fileURLWithPath: "reply.wav"))
    /// ```
    ///
    /// - Throws: `.emptyText`, `.invalidInput` (options), `.voiceNotFound`, `.backendError`.
    public func synthesize(_ text: String, options: TTSOptions = TTSOptions()) async throws(SDKException) -> TTSOutput {
        try await runtime().tts.synthesize(text, options: options)
    }

    /// Synthesizes `text` one sentence at a time, yielding each sentence's audio as soon as
    /// it is ready, so playback can begin long before the whole text is done.
    ///
    /// ```swift
    /// for try await sentence in sdk.synthesizeSentences(longText) { /* play it */ }
    /// ```
    ///
    /// - Throws: in the stream, what ``synthesize(_:options:)`` throws.
    public func synthesizeSentences(
        _ text: String,
        options: TTSOptions = TTSOptions()
    ) -> AsyncThrowingStream<TTSOutput, any Error> {
        do {
            return try runtime().tts.stream(text, options: options)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
    }

    /// ``synthesizeSentences(_:options:)`` in the original SDK's shape: a stream that does not
    /// throw. An error ends it and is logged; one from synthesis is also published as a
    /// `synthesisFailed` event (an instance that is not initialized publishes nothing).
    public func synthesizeStream(_ text: String, options: TTSOptions = TTSOptions()) -> AsyncStream<TTSOutput> {
        synthesizeSentences(text, options: options).endingOnError(category: "TTS")
    }

    /// Speaks `text` through `output`, or through the default sound device when `output`
    /// is `nil`. The next sentence is synthesized while the current one plays.
    ///
    /// - Throws: what ``synthesize(_:options:)`` throws, and `.audioDeviceUnavailable`.
    @discardableResult
    public func speak(
        _ text: String,
        options: TTSOptions = TTSOptions(),
        output: (any AudioOutput)? = nil
    ) async throws(SDKException) -> TTSSpeakResult {
        let runtime = try runtime()
        let sink: any AudioOutput
        if let output {
            sink = output
        } else {
            guard ALSAAudioOutput.isAvailable() else {
                throw SDKException(
                    .audioDeviceUnavailable,
                    "This machine has no sound output device",
                    recovery: "Pass an output, e.g. WAVFileAudioOutput(url:)"
                )
            }
            sink = ALSAAudioOutput()
        }
        return try await runtime.tts.speak(text, options: options, output: sink)
    }

    /// Stops everything ``speak(_:options:output:)`` is playing.
    public func stopSpeaking() async {
        guard let runtime = try? runtime() else { return }
        await runtime.tts.stopSpeaking()
    }

    /// The original SDK's name for ``stopSpeaking()``.
    public func stopSynthesis() async {
        await stopSpeaking()
    }
}

extension RunAnywhere {
    /// Loads a neural voice (e.g. `piper-en-us-joe-medium`), unloading the previous one.
    ///
    /// Calls ``RunAnywhereSDK/loadTTSModel(_:)`` on the shared instance.
    public static func loadTTSModel(_ id: String) async throws(SDKException) {
        try await sdk().loadTTSModel(id)
    }

    /// Unloads the neural voice; the system voice answers from now on.
    ///
    /// Calls ``RunAnywhereSDK/unloadTTSModel()`` on the shared instance.
    public static func unloadTTSModel() async throws(SDKException) {
        try await sdk().unloadTTSModel()
    }

    /// Every voice that can speak now: the loaded and downloaded voice models and the system voices.
    ///
    /// Calls ``RunAnywhereSDK/availableTTSVoices()`` on the shared instance.
    public static func availableTTSVoices() async throws(SDKException) -> [TTSVoice] {
        try await sdk().availableTTSVoices()
    }

    /// Synthesizes `text`. Long text is spoken sentence by sentence and joined.
    ///
    /// Calls ``RunAnywhereSDK/synthesize(_:options:)`` on the shared instance.
    public static func synthesize(
        _ text: String,
        options: TTSOptions = TTSOptions()
    ) async throws(SDKException) -> TTSOutput {
        try await sdk().synthesize(text, options: options)
    }

    /// Speaks `text` through `output`, or through the default sound device when `output`
    /// is `nil`. The next sentence is synthesized while the current one plays.
    ///
    /// Calls ``RunAnywhereSDK/speak(_:options:output:)`` on the shared instance.
    @discardableResult
    public static func speak(
        _ text: String,
        options: TTSOptions = TTSOptions(),
        output: (any AudioOutput)? = nil
    ) async throws(SDKException) -> TTSSpeakResult {
        try await sdk().speak(text, options: options, output: output)
    }

    /// The shared instance's loaded neural voice model, if any.
    public static var currentTTSModel: ModelInfo? {
        get async { await shared?.currentTTSModel }
    }

    /// Synthesizes `text` one sentence at a time.
    ///
    /// Calls ``RunAnywhereSDK/synthesizeSentences(_:options:)`` on the shared instance.
    public static func synthesizeSentences(
        _ text: String,
        options: TTSOptions = TTSOptions()
    ) -> AsyncThrowingStream<TTSOutput, any Error> {
        do {
            return try sdk().synthesizeSentences(text, options: options)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
    }

    /// Synthesizes `text` one sentence at a time, in a stream that does not throw:
    /// ``synthesizeSentences(_:options:)``, whose error (a missing shared instance included)
    /// ends the stream and is logged, as ``RunAnywhereSDK/synthesizeStream(_:options:)`` does.
    public static func synthesizeStream(_ text: String, options: TTSOptions = TTSOptions()) -> AsyncStream<TTSOutput> {
        synthesizeSentences(text, options: options).endingOnError(category: "TTS")
    }

    /// Stops everything the shared instance is speaking.
    public static func stopSpeaking() async {
        await shared?.stopSpeaking()
    }

    /// The original SDK's name for ``stopSpeaking()``: it stops what is playing; a
    /// ``synthesize(_:options:)`` call ends when it is cancelled.
    public static func stopSynthesis() async {
        await stopSpeaking()
    }
}
