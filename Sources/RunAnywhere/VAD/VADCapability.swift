#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Voice activity detection: frames arbitrary chunks, asks the loaded model (or the
/// energy detector when none is loaded) for per-frame probabilities, and tracks speech
/// starts and ends.
actor VADCapability {
    private let services: ServiceRegistry
    private let events: EventBus
    let lifecycle: ModelLifecycle<any VADService>
    private var configuration = VADConfiguration()
    private let energy = EnergyVADService()
    private var tracker: VoiceActivityTracker?
    /// Samples waiting to fill a frame, at the service's rate.
    private var pending: [Float] = []
    /// The service the tracker's state belongs to; a change resets the stream.
    private var activeService: ObjectIdentifier?

    init(services: ServiceRegistry, registry: ModelRegistry, events: EventBus) {
        self.services = services
        self.events = events
        self.lifecycle = ModelLifecycle(category: .voiceActivityDetection, registry: registry, events: events) {
            service in
            await service.unload()
        }
    }

    func load(_ id: String) async throws(SDKException) {
        let services = self.services
        let configuration = self.configuration
        try await lifecycle.load(id) { model in
            let service = try await services.vad.provider(for: model).factory(model)
            try await service.configure(configuration)
            return service
        }
        await reset()
    }

    func unload() async {
        await lifecycle.unload()
        await reset()
    }

    var currentModel: ModelInfo? { get async { await lifecycle.currentModel } }

    func configure(_ configuration: VADConfiguration) async throws(SDKException) {
        try configuration.validate()
        do {
            try await energy.configure(configuration)
            try await lifecycle.currentService?.configure(configuration)
        } catch {
            throw SDKException.wrap(error, as: .backendError, "The VAD rejected the configuration")
        }
        self.configuration = configuration
        tracker?.configuration = configuration
    }

    var currentConfiguration: VADConfiguration { configuration }

    /// How long one frame of the detector in use is: the loaded model's, else the energy detector's.
    var frameDuration: TimeInterval {
        get async {
            let service: any VADService = await lifecycle.currentService ?? energy
            return Double(service.frameSize) / Double(service.sampleRate)
        }
    }

    /// Forgets the stream so far: `SpeechActivityEvent.time` restarts at 0.
    func reset() async {
        tracker = nil
        pending = []
        activeService = nil
        if let service = await lifecycle.currentService { await service.reset() }
        await energy.reset()
    }

    /// Processes the next chunk of a stream.
    func process(_ chunk: PCMAudio) async throws(SDKException) -> VADResult {
        try chunk.validate()
        let service: any VADService = await lifecycle.currentService ?? energy
        let identity = ObjectIdentifier(service)
        if activeService != identity {
            tracker = VoiceActivityTracker(
                configuration: configuration,
                frameDuration: Double(service.frameSize) / Double(service.sampleRate)
            )
            pending = []
            activeService = identity
        }
        let input = chunk.speechInput(sampleRate: service.sampleRate)
        pending += input.samples
        let usable = pending.count - pending.count % service.frameSize
        var probabilities: [Float] = []
        if usable > 0 {
            let frames = Array(pending[0..<usable])
            pending.removeFirst(usable)
            do {
                probabilities = try await service.speechProbabilities(frames)
            } catch {
                throw SDKException.wrap(error, as: .backendError, "Voice activity detection failed")
            }
        }
        var found: [SpeechActivityEvent] = []
        for probability in probabilities {
            if let event = tracker!.consume(probability) { found.append(event) }
        }
        for event in found { publish(event) }
        return VADResult(
            isSpeech: tracker!.isSpeech,
            probability: probabilities.max() ?? 0,
            energyDecibels: chunk.rmsDecibels,
            events: found,
            duration: chunk.duration
        )
    }

    /// Ends the stream: an open speech segment is closed at the end of the audio.
    func finish() -> SpeechActivityEvent? {
        guard let event = tracker?.finish() else { return nil }
        publish(event)
        return event
    }

    /// Speech segments of a whole recording, from a fresh state.
    func segments(in audio: PCMAudio) async throws(SDKException) -> [SpeechSegment] {
        try audio.validate()
        await reset()
        var segments: [SpeechSegment] = []
        var start: TimeInterval?
        func take(_ events: [SpeechActivityEvent]) {
            for event in events {
                switch event.kind {
                case .speechStarted: start = event.time
                case .speechEnded:
                    if let begun = start { segments.append(SpeechSegment(start: begun, end: event.time)) }
                    start = nil
                }
            }
        }
        for chunk in audio.chunks(duration: 1.0) {
            take(try await process(chunk).events)
        }
        take(finish().map { [$0] } ?? [])
        await reset()
        return segments
    }

    private func publish(_ event: SpeechActivityEvent) {
        switch event.kind {
        case .speechStarted: events.publish(.speechStarted(time: event.time))
        case .speechEnded: events.publish(.speechEnded(time: event.time))
        }
    }
}
