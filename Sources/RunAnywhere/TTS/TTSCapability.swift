#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Speech synthesis: owns the loaded voice model and the system voice, picks the voice
/// for each request, cuts text into sentences, streams audio piece by piece, applies the
/// volume, and plays through an ``AudioOutput``.
actor TTSCapability {
    private let services: ServiceRegistry
    private let registry: ModelRegistry
    private let events: EventBus
    let lifecycle: ModelLifecycle<any TTSService>
    private var system: (any TTSService)?
    private var speaking: [UUID: any AudioOutput] = [:]
    private let splitter = SpeechTextSplitter()
    private let logger = SDKLogger(category: "TTS")

    init(services: ServiceRegistry, registry: ModelRegistry, events: EventBus) {
        self.services = services
        self.registry = registry
        self.events = events
        self.lifecycle = ModelLifecycle(category: .speechSynthesis, registry: registry, events: events) { service in
            await service.unload()
        }
    }

    func load(_ id: String) async throws(SDKException) {
        let services = self.services
        try await lifecycle.load(id) { model in
            try await services.tts.provider(for: model).factory(model)
        }
    }

    func unload() async { await lifecycle.unload() }

    func shutdown() async {
        await lifecycle.unload()
        await system?.unload()
        system = nil
    }

    var currentModel: ModelInfo? { get async { await lifecycle.currentModel } }

    /// The system voice, created on first use.
    private func systemService() async throws(SDKException) -> any TTSService {
        if let system { return system }
        guard let provider = services.systemTTSFactory else {
            throw SDKException(
                .noBackendForModel,
                "No voice model is loaded and no system voice is registered",
                recovery: "Load a voice with RunAnywhere.loadTTSModel(_:), or register SystemVoice"
            )
        }
        do {
            let service = try await provider.factory()
            system = service
            return service
        } catch {
            throw SDKException.wrap(error, as: .modelLoadFailed, "The system voice (\(provider.name)) failed to start")
        }
    }

    /// Voices of the loaded model, of every downloaded voice model, and of the system voice.
    func voices() async -> [TTSVoice] {
        var voices = await lifecycle.currentService?.voices ?? []
        for model in registry.models(category: .speechSynthesis)
        where model.isDownloaded && !voices.contains(where: { $0.id == model.id }) {
            voices.append(TTSVoice(id: model.id, name: model.name, language: "", sampleRate: 0, isSystem: false))
        }
        if let system = try? await systemService() { voices += system.voices }
        return voices
    }

    /// The service and voice id that answer `requested`.
    private func resolve(_ requested: String?) async throws(SDKException) -> (any TTSService, String) {
        if let loaded = await lifecycle.currentService {
            if requested == nil, let first = loaded.voices.first { return (loaded, first.id) }
            if let requested, loaded.voices.contains(where: { $0.id == requested }) { return (loaded, requested) }
        }
        if let requested, let model = try? registry.get(requested), model.category == .speechSynthesis {
            try await load(requested)
            let service = try await loadedOrFail()
            return (service, service.voices.first?.id ?? requested)
        }
        let system = try await systemService()
        guard let requested else {
            guard let first = system.voices.first else {
                throw SDKException(.voiceNotFound, "The system voice has no voices")
            }
            return (system, first.id)
        }
        // System voice ids carry their engine's prefix (`espeak-ng:en-us`); the bare name answers too.
        let matches = { (id: String) in
            id == requested || id.split(separator: ":", maxSplits: 1).last.map(String.init) == requested
        }
        if let voice = system.voices.first(where: { matches($0.id) }) {
            return (system, voice.id)
        }
        throw SDKException(
            .voiceNotFound,
            "No voice '\(requested)'",
            recovery: "See RunAnywhere.availableTTSVoices() or `runanywhere speak --list-voices`"
        )
    }

    private func loadedOrFail() async throws(SDKException) -> any TTSService {
        guard let service = await lifecycle.currentService else {
            throw SDKException(.modelNotLoaded, "No voice model is loaded")
        }
        return service
    }

    /// Synthesizes all of `text` as one buffer.
    func synthesize(_ text: String, options: TTSOptions) async throws(SDKException) -> TTSOutput {
        let start = ContinuousClock.now
        var audio: PCMAudio?
        var voice = ""
        var words: [TTSWordTiming] = []
        do {
            for try await piece in stream(text, options: options) {
                voice = piece.voice
                words += piece.wordTimings.map { $0.shifted(by: audio?.duration ?? 0) }
                if audio == nil { audio = piece.audio } else { audio!.append(piece.audio) }
            }
        } catch {
            throw SDKException.wrap(error, as: .backendError, "Synthesis failed")
        }
        guard let audio else { throw SDKException(.emptyText, "There is nothing to say") }
        return TTSOutput(
            audio: audio,
            text: text,
            voice: voice,
            processingTimeMs: start.duration(to: .now).milliseconds,
            wordTimings: words
        )
    }

    /// Synthesizes `text` piece by piece: each sentence's audio is yielded as soon as it exists.
    nonisolated func stream(_ text: String, options: TTSOptions) -> AsyncThrowingStream<TTSOutput, any Error> {
        let (stream, continuation) = AsyncThrowingStream<TTSOutput, any Error>.makeStream()
        let work = Task {
            var voice = options.voice ?? "default"
            do {
                let (service, resolved, pieces) = try await self.prepare(text, options: options)
                voice = resolved
                let start = ContinuousClock.now
                var seconds = 0.0
                // A pause before any audio waits for the voice's sample rate, then leads the next piece.
                var sampleRate: Int?
                var pendingPause = 0.0
                for piece in pieces {
                    try Task.checkCancellation()
                    let pieceStart = ContinuousClock.now
                    switch piece {
                    case .pause(let pause):
                        guard let sampleRate else {
                            pendingPause += pause
                            continue
                        }
                        let output = TTSOutput(
                            audio: PCMAudio.silence(seconds: pause, sampleRate: sampleRate),
                            text: "",
                            voice: resolved,
                            processingTimeMs: 0
                        )
                        seconds += output.duration
                        continuation.yield(output)
                    case .speech(let text, let pieceOptions):
                        let (raw, reported) = try await service.synthesizeWithWordTimings(
                            text,
                            voice: resolved,
                            options: pieceOptions
                        )
                        try raw.validate()
                        var audio = raw.mono().scaled(by: pieceOptions.volume)
                        var words = reported ?? TTSWordTiming.estimate(text, in: audio)
                        if pendingPause > 0 {
                            var lead = PCMAudio.silence(seconds: pendingPause, sampleRate: audio.sampleRate)
                            lead.append(audio)
                            audio = lead
                            words = words.map { $0.shifted(by: pendingPause) }
                            pendingPause = 0
                        }
                        sampleRate = audio.sampleRate
                        let output = TTSOutput(
                            audio: audio,
                            text: text,
                            voice: resolved,
                            processingTimeMs: pieceStart.duration(to: .now).milliseconds,
                            wordTimings: words
                        )
                        seconds += output.duration
                        continuation.yield(output)
                    }
                }
                self.events.publish(
                    .synthesisCompleted(
                        voice: resolved,
                        characters: text.count,
                        audioSeconds: seconds,
                        durationMs: start.duration(to: .now).milliseconds
                    )
                )
                continuation.finish()
            } catch is CancellationError {
                continuation.finish()
            } catch {
                let sdkError = SDKException.wrap(error, as: .backendError, "Synthesis failed")
                self.events.publish(.synthesisFailed(voice: voice, error: sdkError))
                continuation.finish(throwing: sdkError)
            }
        }
        continuation.onTermination = { _ in work.cancel() }
        return stream
    }

    /// What the engine is asked for, in order: sentences with their options, and pauses.
    enum Piece: Sendable {
        case speech(String, TTSOptions)
        case pause(TimeInterval)
    }

    private func prepare(
        _ text: String,
        options: TTSOptions
    ) async throws(SDKException) -> (any TTSService, String, [Piece]) {
        try options.validate()
        guard !text.trimmed().isEmpty else {
            throw SDKException(.emptyText, "The text to speak is empty")
        }
        var pieces: [Piece] = []
        if options.ssml {
            for segment in try SSMLDocument(parsing: text).segments {
                switch segment {
                case .pause(let seconds):
                    pieces.append(.pause(seconds))
                case .text(let words, let rate, let pitch, let volume):
                    // The markup's prosody scales the request's, within the ranges engines take.
                    var scaled = options
                    scaled.ssml = false
                    scaled.rate = min(4, max(0.25, options.rate * rate))
                    scaled.pitch = min(2, max(0.5, options.pitch * pitch))
                    scaled.volume = min(2, max(0, options.volume * volume))
                    pieces += splitter.split(words).map { .speech($0, scaled) }
                }
            }
        } else {
            pieces = splitter.split(text).map { .speech($0, options) }
        }
        guard pieces.contains(where: { if case .speech = $0 { true } else { false } }) else {
            throw SDKException(.emptyText, "The text has nothing to pronounce (no letters or digits)")
        }
        let (service, voice) = try await resolve(options.voice)
        return (service, voice, pieces)
    }

    /// Synthesizes and plays `text`; the next sentence is synthesized while one plays.
    func speak(
        _ text: String,
        options: TTSOptions,
        output: any AudioOutput
    ) async throws(SDKException) -> TTSSpeakResult {
        let id = UUID()
        speaking[id] = output
        defer { speaking[id] = nil }
        let start = ContinuousClock.now
        var firstAudio: Double?
        var duration = 0.0
        var chunks = 0
        var words: [TTSWordTiming] = []
        do {
            for try await piece in stream(text, options: options) {
                if speaking[id] == nil { break }  // stopped
                if firstAudio == nil { firstAudio = start.duration(to: .now).milliseconds }
                try await output.play(piece.audio)
                words += piece.wordTimings.map { $0.shifted(by: duration) }
                duration += piece.duration
                chunks += 1
            }
        } catch {
            throw SDKException.wrap(error, as: .backendError, "Speaking failed")
        }
        let total = start.duration(to: .now).milliseconds
        return TTSSpeakResult(
            duration: duration,
            firstAudioMs: firstAudio ?? total,
            totalMs: total,
            chunks: chunks,
            wordTimings: words
        )
    }

    /// Stops every `speak` in progress.
    func stopSpeaking() async {
        let outputs = Array(speaking.values)
        speaking.removeAll()
        for output in outputs { await output.stop() }
    }
}
