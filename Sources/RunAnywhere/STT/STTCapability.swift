#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Speech recognition: owns the loaded STT model, converts any audio to what the engine
/// takes (16 kHz mono), times the work, and turns whole-utterance engines into a stream
/// of partial results.
actor STTCapability {
    /// The shortest audio worth transcribing; anything shorter is an input error.
    static let minimumDuration: TimeInterval = 0.1
    /// The lowest sample rate speech is recognised from (telephone audio's).
    static let minimumSampleRate = 8000
    /// Streams re-transcribe a growing window; past this length its settled part is committed.
    static let maximumWindow: TimeInterval = 20

    private let services: ServiceRegistry
    private let events: EventBus
    private let router: ModelRouter
    let lifecycle: ModelLifecycle<any STTService>
    private let logger = SDKLogger(category: "STT")

    init(services: ServiceRegistry, registry: ModelRegistry, events: EventBus, router: ModelRouter) {
        self.services = services
        self.events = events
        self.router = router
        self.lifecycle = ModelLifecycle(category: .speechRecognition, registry: registry, events: events) { service in
            await service.unload()
        }
    }

    func load(_ id: String) async throws(SDKException) {
        let services = self.services
        let router = self.router
        try await lifecycle.load(id) { model in
            let load: RoutedService<any STTService>.Loader = { try await services.stt.provider(for: $0).factory($0) }
            guard model.remote != nil else { return try await load(model) }
            return try await RoutedSTTService.load(model: model, router: router, local: load, remote: load)
        }
    }

    func unload() async { await lifecycle.unload() }

    var currentModel: ModelInfo? { get async { await lifecycle.currentModel } }

    func loadedService() async throws(SDKException) -> any STTService {
        guard let service = await lifecycle.currentService else {
            throw SDKException(
                .modelNotLoaded,
                "No speech-recognition model is loaded",
                recovery: "Call RunAnywhere.loadSTTModel(_:) first, e.g. with \"whisper-tiny-en\""
            )
        }
        return service
    }

    /// Transcribes a whole recording.
    func transcribe(_ audio: PCMAudio, options: STTOptions) async throws(SDKException) -> STTOutput {
        try options.validate()
        let service = try await loadedService()
        try Self.validate(audio)
        return try await run(service, audio.speechInput(), options: options)
    }

    private func run(
        _ service: any STTService,
        _ input: PCMAudio,
        options: STTOptions
    ) async throws(SDKException) -> STTOutput {
        let start = ContinuousClock.now
        do {
            let result = try await service.transcribe(input, options: options)
            let ms = start.duration(to: .now).milliseconds
            var output = STTOutput(
                text: result.text,
                segments: options.enableTimestamps ? result.segments : [],
                language: result.language,
                confidence: result.confidence,
                modelId: service.model.id,
                audioDuration: input.duration,
                processingTimeMs: ms
            )
            output.executedOn = result.executedOn
            events.publish(
                .transcriptionCompleted(modelId: service.model.id, audioSeconds: input.duration, durationMs: ms)
            )
            return output
        } catch {
            let sdkError = SDKException.wrap(error, as: .backendError, "Transcription failed")
            // A caller that gave up is not a failure of the engine.
            if sdkError.code == .transcriptionCancelled { throw sdkError }
            events.publish(.transcriptionFailed(modelId: service.model.id, error: sdkError))
            logger.error("Transcription failed: \(sdkError)")
            throw sdkError
        }
    }

    static func validate(_ audio: PCMAudio) throws(SDKException) {
        try audio.validate()
        // Below telephone quality there is no speech to hear, and resampling up to 16 kHz would
        // make a small file huge (8-bit samples at 1 kHz grow 64-fold in memory).
        guard audio.sampleRate >= minimumSampleRate else {
            throw SDKException(
                .invalidAudio,
                "The audio is sampled at \(audio.sampleRate) Hz; speech needs at least \(minimumSampleRate) Hz",
                recovery: "Record at 16 kHz (8 kHz telephone audio works too)"
            )
        }
        guard audio.duration >= minimumDuration else {
            throw SDKException(
                .invalidAudio,
                String(
                    printf: "The audio is too short to transcribe: %.3f s (at least %.1f s)",
                    audio.duration,
                    minimumDuration
                )
            )
        }
    }

    /// Partial results while `chunks` arrive, then the final result.
    ///
    /// The engine sees a growing window of the stream every `partialInterval` seconds of
    /// new audio. When the window passes ``maximumWindow``, every segment but the last is
    /// committed and the window restarts at the last segment, so the cost per partial
    /// stays bounded however long the stream runs.
    nonisolated func stream(
        _ chunks: AsyncStream<PCMAudio>,
        options: STTOptions
    ) -> AsyncThrowingStream<STTPartialResult, any Error> {
        let (stream, continuation) = AsyncThrowingStream<STTPartialResult, any Error>.makeStream()
        let task = Task {
            do {
                try options.validate()
                let service = try await self.loadedService()
                var window = PCMAudio(samples: [], sampleRate: 16_000)
                var windowStart: TimeInterval = 0
                var committed: [STTSegment] = []
                var committedText = ""
                var sinceLast: TimeInterval = 0
                var total: TimeInterval = 0
                for await chunk in chunks {
                    if Task.isCancelled { break }
                    guard !chunk.isEmpty else { continue }
                    try chunk.validate()
                    let input = chunk.speechInput()
                    window.append(input)
                    total += input.duration
                    sinceLast += input.duration
                    guard sinceLast >= options.partialInterval, window.duration >= Self.minimumDuration else {
                        continue
                    }
                    sinceLast = 0
                    let output = try await self.run(service, window, options: options)
                    continuation.yield(
                        STTPartialResult(
                            text: Self.join(committedText, output.text),
                            isFinal: false,
                            audioDuration: total
                        )
                    )
                    if window.duration > Self.maximumWindow, output.segments.count > 1, let last = output.segments.last
                    {
                        for segment in output.segments.dropLast() {
                            committed.append(
                                STTSegment(
                                    text: segment.text,
                                    start: segment.start + windowStart,
                                    end: segment.end + windowStart,
                                    confidence: segment.confidence
                                )
                            )
                            committedText = Self.join(committedText, segment.text)
                        }
                        window = window.slice(from: last.start, to: window.duration)
                        windowStart += last.start
                    }
                }
                guard total > 0 else {
                    throw SDKException(.invalidAudio, "The audio stream ended without any audio")
                }
                var final: STTOutput
                if window.duration >= Self.minimumDuration {
                    final = try await self.run(service, window, options: options)
                } else {
                    final = STTOutput(
                        text: "",
                        segments: [],
                        language: nil,
                        confidence: nil,
                        modelId: service.model.id,
                        audioDuration: window.duration,
                        processingTimeMs: 0
                    )
                }
                final.segments =
                    committed
                    + final.segments.map {
                        STTSegment(
                            text: $0.text,
                            start: $0.start + windowStart,
                            end: $0.end + windowStart,
                            confidence: $0.confidence
                        )
                    }
                final.text = Self.join(committedText, final.text)
                final.audioDuration = total
                continuation.yield(
                    STTPartialResult(text: final.text, isFinal: true, audioDuration: total, output: final)
                )
                continuation.finish()
            } catch {
                continuation.finish(
                    throwing: SDKException.wrap(error, as: .backendError, "Streaming transcription failed")
                )
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private static func join(_ a: String, _ b: String) -> String {
        let a = a.trimmedSpaces()
        let b = b.trimmedSpaces()
        return a.isEmpty ? b : b.isEmpty ? a : a + " " + b
    }
}
