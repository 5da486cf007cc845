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
    /// The detector when no model is loaded; replaced when ``VADConfiguration/frameLength``
    /// changes, since a detector's frame is fixed.
    private var energy = EnergyVADService()
    private var tracker: VoiceActivityTracker?
    /// Counts the streams begun: a chunk judged across a reset belongs to the one it began in.
    private var streamNumber = 0
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
        let frameSize = EnergyVADService.frameSize(for: configuration.frameLength)
        var detector = energy
        if detector.frameSize != frameSize { detector = await detector.resized(to: frameSize) }
        do {
            try await detector.configure(configuration)
            try await lifecycle.currentService?.configure(configuration)
        } catch {
            throw SDKException.wrap(error, as: .backendError, "The VAD rejected the configuration")
        }
        if detector !== energy {
            // A new frame is not a new stream: the tracker (which times frames by their own
            // length) and the pending samples (cut at whichever frame is current) carry over.
            if activeService == ObjectIdentifier(energy) { activeService = ObjectIdentifier(detector) }
            energy = detector
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
        streamNumber += 1
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
        let frameDuration = Double(service.frameSize) / Double(service.sampleRate)
        if activeService != identity {
            tracker = VoiceActivityTracker(configuration: configuration, frameDuration: frameDuration)
            streamNumber += 1
            pending = []
            activeService = identity
        }
        let input = chunk.speechInput(sampleRate: service.sampleRate)
        pending += input.samples
        let stream = streamNumber
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
        // A reset, or another detector, while this chunk was judged ended its stream: the
        // frames belong to no stream now, so they make no events.
        guard var tracker, streamNumber == stream else {
            return VADResult(
                isSpeech: false,
                probability: probabilities.max() ?? 0,
                energyDecibels: chunk.rmsDecibels,
                events: [],
                duration: chunk.duration
            )
        }
        // The energy detector's frame may have changed since the last chunk, or while this one
        // was judged: these frames last as long as the detector that judged them says.
        tracker.frameDuration = frameDuration
        var found: [SpeechActivityEvent] = []
        for probability in probabilities {
            if let event = tracker.consume(probability) { found.append(event) }
        }
        self.tracker = tracker
        for event in found { publish(event) }
        return VADResult(
            isSpeech: tracker.isSpeech,
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
