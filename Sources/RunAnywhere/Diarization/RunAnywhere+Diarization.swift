#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// Loads a speaker encoder (e.g. `resemblyzer-ge2e`) for ``diarize(_:options:)``.
    ///
    /// - Throws: `.modelNotFound`, `.modelFileNotFound`, `.noBackendForModel`, `.modelLoadFailed`.
    public func loadDiarizationModel(_ id: String) async throws(SDKException) {
        try await runtime().diarization.load(id)
    }

    /// Unloads the speaker encoder, if any.
    public func unloadDiarizationModel() async throws(SDKException) {
        try await runtime().diarization.unload()
    }

    /// The loaded speaker encoder, if any.
    public var currentDiarizationModel: ModelInfo? {
        get async { try? await runtime().diarization.currentModel }
    }

    /// Who spoke when: the recording's speech, split by speaker.
    ///
    /// The VAD finds the speech (the loaded VAD model, or the energy detector), so this
    /// resets a live VAD stream. Speakers are numbered by first appearance.
    ///
    /// ```swift
    /// try await RunAnywhere.loadDiarizationModel("resemblyzer-ge2e")
    /// let meeting = try WAVFile.read(contentsOf: URL(fileURLWithPath: "meeting.wav"))
    /// for segment in try await RunAnywhere.diarize(meeting) {
    ///     print(segment.label, segment.start, segment.end)
    /// }
    /// ```
    ///
    /// - Throws: `.modelNotLoaded`, `.invalidAudio`, `.invalidInput` (options), `.backendError`.
    public func diarize(
        _ audio: PCMAudio,
        options: DiarizationOptions = DiarizationOptions()
    ) async throws(SDKException) -> [SpeakerSegment] {
        try await runtime().diarization.diarize(audio, options: options)
    }
}

extension RunAnywhere {
    /// Loads a speaker encoder.
    ///
    /// Calls ``RunAnywhereSDK/loadDiarizationModel(_:)`` on the shared instance.
    public static func loadDiarizationModel(_ id: String) async throws(SDKException) {
        try await sdk().loadDiarizationModel(id)
    }

    /// Unloads the speaker encoder.
    ///
    /// Calls ``RunAnywhereSDK/unloadDiarizationModel()`` on the shared instance.
    public static func unloadDiarizationModel() async throws(SDKException) {
        try await sdk().unloadDiarizationModel()
    }

    /// The loaded speaker encoder, if any.
    public static var currentDiarizationModel: ModelInfo? {
        get async { await shared?.currentDiarizationModel }
    }

    /// Who spoke when.
    ///
    /// Calls ``RunAnywhereSDK/diarize(_:options:)`` on the shared instance.
    public static func diarize(
        _ audio: PCMAudio,
        options: DiarizationOptions = DiarizationOptions()
    ) async throws(SDKException) -> [SpeakerSegment] {
        try await sdk().diarize(audio, options: options)
    }
}
