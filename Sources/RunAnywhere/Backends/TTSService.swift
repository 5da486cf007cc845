#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A voice loaded by a backend: a neural voice model, or the system voice.
///
/// The TTS capability splits text into sentences and hands the service one piece at a
/// time, applies the volume, times the work and publishes events. Rate and pitch are
/// the service's job, since only the engine can change them without artefacts.
@_spi(Backend) public protocol TTSService: Sendable {
    /// The voices this service speaks with (one for a neural voice model; many for a system voice).
    var voices: [TTSVoice] { get }

    /// Synthesizes one piece of text (a sentence or a part of one) in `voice`, one of
    /// ``voices``' ids.
    func synthesize(_ text: String, voice: String, options: TTSOptions) async throws -> PCMAudio

    /// As ``synthesize(_:voice:options:)``, with the engine's own word timings where it
    /// reports them; `nil` when it does not (the capability then estimates them). The
    /// default calls ``synthesize(_:voice:options:)`` and reports none.
    func synthesizeWithWordTimings(
        _ text: String,
        voice: String,
        options: TTSOptions
    ) async throws -> (audio: PCMAudio, words: [TTSWordTiming]?)

    /// Frees the engine's resources. The service is unusable afterwards.
    func unload() async
}

extension TTSService {
    /// Synthesizes and reports no word timings.
    public func synthesizeWithWordTimings(
        _ text: String,
        voice: String,
        options: TTSOptions
    ) async throws -> (audio: PCMAudio, words: [TTSWordTiming]?) {
        (try await synthesize(text, voice: voice, options: options), nil)
    }
}

/// Creates a loaded ``TTSService`` for a voice model.
@_spi(Backend) public typealias TTSServiceFactory = @Sendable (ModelInfo) async throws -> any TTSService

/// Creates the system voice, which needs no model.
@_spi(Backend) public typealias SystemTTSFactory = @Sendable () async throws -> any TTSService
