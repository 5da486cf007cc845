#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// Loads a speech-recognition model (e.g. `whisper-tiny-en`), unloading the previous one.
    ///
    /// - Throws: `.modelNotFound`, `.modelFileNotFound`, `.noBackendForModel`, `.modelLoadFailed`.
    public func loadSTTModel(_ id: String) async throws(SDKException) {
        try await runtime().stt.load(id)
    }

    /// Unloads the speech-recognition model, if any.
    public func unloadSTTModel() async throws(SDKException) {
        try await runtime().stt.unload()
    }

    /// The loaded speech-recognition model, if any.
    public var currentSTTModel: ModelInfo? {
        get async { try? await runtime().stt.currentModel }
    }

    /// Transcribes a recording of any rate and channel count (it is converted to 16 kHz mono).
    ///
    /// ```swift
    /// try await RunAnywhere.loadSTTModel("whisper-tiny-en")
    /// let audio = try WAVFile.read(contentsOf: URL(fileURLWithPath: "question.wav"))
    /// let output = try await RunAnywhere.transcribe(audio)
    /// print(output.text, output.realTimeFactor)
    /// ```
    ///
    /// With `STTOptions(diarize: true)`, each segment says who spoke it:
    ///
    /// ```swift
    /// let output = try await RunAnywhere.transcribe(meeting, options: STTOptions(diarize: true))
    /// for segment in output.segments { print("Speaker \(segment.speaker! + 1):", segment.text) }
    /// ```
    ///
    /// - Throws: `.modelNotLoaded`, `.invalidAudio` (empty, shorter than 0.1 s, sampled below
    ///   8 kHz, NaN samples), `.invalidInput` (options), `.backendError`.
    public func transcribe(
        _ audio: PCMAudio,
        options: STTOptions = STTOptions()
    ) async throws(SDKException) -> STTOutput {
        let runtime = try runtime()
        guard options.diarization != nil else { return try await runtime.stt.transcribe(audio, options: options) }
        return try await DiarizedTranscription.transcribe(
            audio,
            options: options,
            stt: runtime.stt,
            diarization: runtime.diarization
        )
    }

    /// Transcribes audio bytes: a WAV file's contents, or raw 16-bit little-endian mono PCM
    /// at `options.sampleRate`.
    public func transcribe(audio: Data, options: STTOptions = STTOptions()) async throws(SDKException) -> STTOutput {
        try await transcribe(decodeAudio(audio, sampleRate: options.sampleRate), options: options)
    }

    /// Transcribes audio while it arrives: partial results every `options.partialInterval`
    /// seconds of new audio, then one final result (`isFinal`) when the input ends.
    ///
    /// ```swift
    /// for try await partial in RunAnywhere.transcribeStream(microphoneChunks) {
    ///     print(partial.isFinal ? "final:" : "partial:", partial.text)
    /// }
    /// ```
    public func transcribeStream(
        _ audio: AsyncStream<PCMAudio>,
        options: STTOptions = STTOptions()
    ) -> AsyncThrowingStream<STTPartialResult, any Error> {
        do {
            return try runtime().stt.stream(audio, options: options)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
    }

    /// ``transcribeStream(_:options:)-(AsyncStream<PCMAudio>,_)`` over raw 16-bit little-endian
    /// mono PCM chunks at `options.sampleRate`.
    public func transcribeStream(
        _ audio: AsyncStream<Data>,
        options: STTOptions = STTOptions()
    ) -> AsyncThrowingStream<STTPartialResult, any Error> {
        transcribeStream(audio.pcmBuffers(sampleRate: options.sampleRate), options: options)
    }

    /// ``transcribeStream(_:options:)-(AsyncStream<Data>,_)`` in the original SDK's shape: a
    /// stream that does not throw; an error ends it (and is logged).
    public func transcribeStream(
        audio: AsyncStream<Data>,
        options: STTOptions = STTOptions()
    ) -> AsyncStream<STTPartialResult> {
        transcribeStream(audio, options: options).endingOnError(category: "STT")
    }

    /// WAV bytes, or raw PCM16 when there is no RIFF header.
    func decodeAudio(_ data: Data, sampleRate: Int) throws(SDKException) -> PCMAudio {
        if data.count >= 4, data.prefix(4).elementsEqual("RIFF".utf8) { return try WAVFile.decode(data) }
        return PCMAudio(pcm16: data, sampleRate: sampleRate)
    }
}

extension RunAnywhere {
    /// Loads a speech-recognition model (e.g. `whisper-tiny-en`), unloading the previous one.
    ///
    /// Calls ``RunAnywhereSDK/loadSTTModel(_:)`` on the shared instance.
    public static func loadSTTModel(_ id: String) async throws(SDKException) {
        try await sdk().loadSTTModel(id)
    }

    /// Unloads the speech-recognition model, if any.
    ///
    /// Calls ``RunAnywhereSDK/unloadSTTModel()`` on the shared instance.
    public static func unloadSTTModel() async throws(SDKException) {
        try await sdk().unloadSTTModel()
    }

    /// Transcribes a recording of any rate and channel count (it is converted to 16 kHz mono).
    ///
    /// Calls ``RunAnywhereSDK/transcribe(_:options:)`` on the shared instance.
    public static func transcribe(
        _ audio: PCMAudio,
        options: STTOptions = STTOptions()
    ) async throws(SDKException) -> STTOutput {
        try await sdk().transcribe(audio, options: options)
    }

    /// Transcribes audio bytes: a WAV file's contents, or raw 16-bit little-endian mono PCM
    /// at `options.sampleRate`.
    ///
    /// Calls ``RunAnywhereSDK/transcribe(audio:options:)`` on the shared instance.
    public static func transcribe(
        audio: Data,
        options: STTOptions = STTOptions()
    ) async throws(SDKException) -> STTOutput {
        try await sdk().transcribe(audio: audio, options: options)
    }

    /// The shared instance's loaded speech-recognition model, if any.
    public static var currentSTTModel: ModelInfo? {
        get async { await shared?.currentSTTModel }
    }

    /// Transcribes audio while it arrives: partial results, then one final result.
    ///
    /// Calls ``RunAnywhereSDK/transcribeStream(_:options:)-(AsyncStream<PCMAudio>,_)`` on the shared instance.
    public static func transcribeStream(
        _ audio: AsyncStream<PCMAudio>,
        options: STTOptions = STTOptions()
    ) -> AsyncThrowingStream<STTPartialResult, any Error> {
        do {
            return try sdk().transcribeStream(audio, options: options)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
    }

    /// ``transcribeStream(_:options:)-(AsyncStream<PCMAudio>,_)`` over raw 16-bit little-endian
    /// mono PCM chunks at `options.sampleRate`.
    public static func transcribeStream(
        _ audio: AsyncStream<Data>,
        options: STTOptions = STTOptions()
    ) -> AsyncThrowingStream<STTPartialResult, any Error> {
        transcribeStream(audio.pcmBuffers(sampleRate: options.sampleRate), options: options)
    }

    /// ``transcribeStream(_:options:)-(AsyncStream<Data>,_)`` in the original SDK's shape: a
    /// stream that does not throw; an error ends it (and is logged).
    public static func transcribeStream(
        audio: AsyncStream<Data>,
        options: STTOptions = STTOptions()
    ) -> AsyncStream<STTPartialResult> {
        transcribeStream(audio, options: options).endingOnError(category: "STT")
    }
}

extension AsyncStream<Data> {
    /// Raw 16-bit little-endian mono PCM chunks as buffers; an odd byte is carried over.
    func pcmBuffers(sampleRate: Int) -> AsyncStream<PCMAudio> {
        let (stream, continuation) = AsyncStream<PCMAudio>.makeStream()
        let task = Task {
            var carry = Data()
            for await chunk in self {
                var bytes = carry + chunk
                carry = bytes.count % 2 == 1 ? Data([bytes.removeLast()]) : Data()
                continuation.yield(PCMAudio(pcm16: bytes, sampleRate: sampleRate))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
