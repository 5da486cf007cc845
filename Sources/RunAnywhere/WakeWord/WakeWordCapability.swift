#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Wake-word spotting: picks the engine (a registered keyword spotter, else phrases read
/// from transcripts of the loaded speech-to-text model) and gives each stream its own.
struct WakeWordCapability: Sendable {
    let services: ServiceRegistry
    let stt: STTCapability

    /// The engine name the transcript fallback reports.
    static let transcriptEngine = "transcript"

    /// The engine a stream would use now, or nil when there is none (no keyword spotter is
    /// registered and no speech-to-text model is loaded).
    var engine: String? {
        get async {
            if let spotter = services.wakeWordFactory { return spotter.name }
            return await stt.currentModel == nil ? nil : Self.transcriptEngine
        }
    }

    /// A spotter for one stream, listening for `configuration`'s phrases.
    func spotter(_ configuration: WakeWordConfiguration) async throws(SDKException) -> WakeWordSpotter {
        try configuration.validate()
        if let registered = services.wakeWordFactory {
            do {
                return WakeWordSpotter(service: try await registered.factory(configuration), engine: registered.name)
            } catch {
                throw SDKException.wrap(error, as: .backendError, "\(registered.name) cannot spot the wake phrases")
            }
        }
        guard await stt.currentModel != nil else {
            throw SDKException(
                .modelNotLoaded,
                "No keyword spotter is registered and no speech-to-text model is loaded to spot the wake phrases with",
                recovery: "Register the PocketSphinx module, or load an STT model (e.g. whisper-tiny-en)"
            )
        }
        let stt = self.stt
        let service = TranscriptWakeWordService(configuration: configuration) { audio in
            try await stt.transcribe(audio, options: STTOptions(language: "en", enableTimestamps: false)).text
        }
        return WakeWordSpotter(service: service, engine: Self.transcriptEngine)
    }
}

/// One stream's wake-word spotter: hands the engine mono chunks and turns its spots into
/// detections.
struct WakeWordSpotter: Sendable {
    let service: any WakeWordService
    let engine: String

    /// The phrases that ended in `chunk`.
    func process(_ chunk: PCMAudio) async throws(SDKException) -> [WakeWordDetection] {
        try chunk.validate()
        do {
            return try await service.process(chunk.mono()).map { spot in
                WakeWordDetection(phrase: spot.phrase, time: spot.time, engine: engine)
            }
        } catch {
            throw SDKException.wrap(error, as: .backendError, "Wake-word spotting failed")
        }
    }

    /// The phrases an engine only reports once it hears what follows them: at the end of
    /// the input, half a second of silence lets a phrase that ends it be heard.
    func finish() async throws(SDKException) -> [WakeWordDetection] {
        try await process(.silence(duration: 0.5, sampleRate: 16_000))
    }

    /// Forgets the stream: times restart at 0.
    func reset() async {
        await service.reset()
    }
}
