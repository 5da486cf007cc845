#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Speaker diarization: who spoke when.
///
/// The VAD finds the speech; each stretch is cut into windows of the encoder's length
/// (half overlapping); the loaded speaker encoder turns each window into a vector; the
/// vectors are clustered into speakers (``SpeakerClustering``); and each moment of speech
/// goes to the speaker of the window centred nearest to it.
actor DiarizationCapability {
    private let services: ServiceRegistry
    private let vad: VADCapability
    private let events: EventBus
    let lifecycle: ModelLifecycle<any SpeakerEmbeddingService>

    /// Speech shorter than this is not embedded (a vector of a syllable says little about
    /// the voice): it goes to the speaker talking nearest to it in time.
    static let shortestWindow: TimeInterval = 0.5
    /// Windows embedded per call to the encoder: memory stays bounded however long the
    /// recording (each window costs the Resemblyzer encoder about 1 MB while it runs).
    static let batchSize = 64
    /// How far a change of speaker inside one stretch of speech may move, either side of the
    /// midpoint between the two windows' centres, to the quietest moment: people change turns
    /// in pauses, not mid-word.
    static let boundarySearch: TimeInterval = 0.3

    init(services: ServiceRegistry, registry: ModelRegistry, vad: VADCapability, events: EventBus) {
        self.services = services
        self.vad = vad
        self.events = events
        self.lifecycle = ModelLifecycle(category: .speakerEmbedding, registry: registry, events: events) { service in
            await service.unload()
        }
    }

    func load(_ id: String) async throws(SDKException) {
        let services = self.services
        try await lifecycle.load(id) { model in
            try await services.speakerEmbedding.provider(for: model).factory(model)
        }
    }

    func unload() async { await lifecycle.unload() }

    var currentModel: ModelInfo? { get async { await lifecycle.currentModel } }

    private func loadedService() async throws(SDKException) -> any SpeakerEmbeddingService {
        guard let service = await lifecycle.currentService else {
            throw SDKException(
                .modelNotLoaded,
                "No speaker-embedding model is loaded",
                recovery: "Call RunAnywhere.loadDiarizationModel(_:) first, e.g. with \"resemblyzer-ge2e\""
            )
        }
        return service
    }

    /// Who spoke when in `audio` (any rate and channel count).
    func diarize(_ audio: PCMAudio, options: DiarizationOptions) async throws(SDKException) -> [SpeakerSegment] {
        try options.validate()
        try audio.validate()
        let service = try await loadedService()
        let speech = try await vad.segments(in: audio)
        return try await diarize(audio, speech: speech, service: service, options: options)
    }

    /// Diarizes the given stretches of speech.
    func diarize(
        _ audio: PCMAudio,
        speech: [SpeechSegment],
        service: any SpeakerEmbeddingService,
        options: DiarizationOptions
    ) async throws(SDKException) -> [SpeakerSegment] {
        // The encoder is a plugin: its window and rate are checked before they drive any loop.
        guard service.windowDuration.isFinite, (0.1...30).contains(service.windowDuration),
            (8_000...96_000).contains(service.sampleRate), service.dimension > 0
        else {
            throw SDKException(
                .backendError,
                "The speaker encoder reports a window of \(service.windowDuration) s at \(service.sampleRate) Hz"
            )
        }
        let input = audio.speechInput(sampleRate: service.sampleRate)
        let windows = Self.windows(in: speech, length: service.windowDuration)
        // Speech too short to tell voices apart is still someone's: one speaker.
        guard !windows.isEmpty else { return speech.map { SpeakerSegment(speaker: 0, start: $0.start, end: $0.end) } }
        var vectors: [[Float]] = []
        for first in stride(from: 0, to: windows.count, by: Self.batchSize) {
            if Task.isCancelled { throw SDKException(.transcriptionCancelled, "Diarization was cancelled") }
            let batch = windows[first..<min(windows.count, first + Self.batchSize)]
            let clips = batch.map { input.slice(from: $0.start, to: $0.end).samples }
            let embedded: [[Float]]
            do {
                embedded = try await service.embed(clips)
            } catch {
                throw SDKException.wrap(error, as: .backendError, "The speaker encoder failed")
            }
            guard embedded.count == clips.count,
                embedded.allSatisfy({ $0.count == service.dimension && $0.allSatisfy(\.isFinite) })
            else {
                throw SDKException(
                    .backendError,
                    "The speaker encoder returned \(embedded.count) vectors for \(clips.count) windows, "
                        + "not all of \(service.dimension) finite numbers"
                )
            }
            vectors += embedded
        }
        let labels = SpeakerClustering.cluster(
            vectors,
            weights: windows.map(\.duration),
            count: options.speakerCount,
            threshold: options.similarityThreshold,
            maximum: options.maximumSpeakers
        )
        return Self.segments(speech: speech, windows: windows, labels: labels, levels: input.frameLevels())
    }

    /// A window of speech to embed.
    struct Window: Equatable {
        var start: TimeInterval
        var end: TimeInterval
        var duration: TimeInterval { end - start }
        var centre: TimeInterval { (start + end) / 2 }
    }

    /// Windows of `length` seconds every half length over each stretch of speech at least
    /// ``shortestWindow`` long, the last one ending with the stretch (unless it would nearly
    /// repeat the one before, which would count that audio twice); a stretch shorter than
    /// `length` is one window.
    static func windows(in speech: [SpeechSegment], length: TimeInterval) -> [Window] {
        guard length > 0 else { return [] }
        var windows: [Window] = []
        for segment in speech where segment.duration >= shortestWindow {
            guard segment.duration > length else {
                windows.append(Window(start: segment.start, end: segment.end))
                continue
            }
            var start = segment.start
            while start + length < segment.end {
                windows.append(Window(start: start, end: start + length))
                start += length / 2
            }
            let last = segment.end - length
            if let previous = windows.last?.start, last - previous < length / 4 {
                windows[windows.count - 1] = Window(start: previous, end: segment.end)
            } else {
                windows.append(Window(start: last, end: segment.end))
            }
        }
        return windows
    }

    /// Each stretch of speech split where the nearest window changes speaker, at the
    /// quietest moment near the midpoint between the two windows' centres (`levels`: dBFS
    /// per 20 ms frame of the recording, if known); stretches with no window of their own
    /// take the speaker of the nearest window.
    static func segments(
        speech: [SpeechSegment],
        windows: [Window],
        labels: [Int],
        levels: [Float] = []
    ) -> [SpeakerSegment] {
        guard !windows.isEmpty else { return [] }
        func nearest(_ time: TimeInterval, among indices: some Sequence<Int>) -> Int? {
            indices.min { abs(windows[$0].centre - time) < abs(windows[$1].centre - time) }
        }
        var result: [SpeakerSegment] = []
        for segment in speech {
            let own = windows.indices.filter { windows[$0].start >= segment.start && windows[$0].end <= segment.end }
            guard !own.isEmpty else {
                let index = nearest((segment.start + segment.end) / 2, among: windows.indices) ?? 0
                result.append(SpeakerSegment(speaker: labels[index], start: segment.start, end: segment.end))
                continue
            }
            // Boundaries halfway between the centres of consecutive windows of different speakers.
            var start = segment.start
            var speaker = labels[own[0]]
            for (previous, next) in zip(own, own.dropFirst()) where labels[next] != speaker {
                let boundary = quietest(
                    near: (windows[previous].centre + windows[next].centre) / 2,
                    within: max(start, windows[previous].centre)...windows[next].centre,
                    levels: levels
                )
                result.append(SpeakerSegment(speaker: speaker, start: start, end: boundary))
                start = boundary
                speaker = labels[next]
            }
            result.append(SpeakerSegment(speaker: speaker, start: start, end: segment.end))
        }
        // Speakers by first appearance in time.
        let order = SpeakerClustering.firstAppearanceOrder(result.map(\.speaker))
        for index in result.indices { result[index].speaker = order[index] }
        return result
    }

    /// The start of the quietest 20 ms frame within ``boundarySearch`` of `time` and inside
    /// `range`; `time` itself without levels.
    static func quietest(
        near time: TimeInterval,
        within range: ClosedRange<TimeInterval>,
        levels: [Float]
    ) -> TimeInterval {
        let frame = 0.02
        let from = max(0, Int((max(range.lowerBound, time - boundarySearch) / frame).rounded(.up)))
        let to = min(levels.count - 1, Int((min(range.upperBound, time + boundarySearch) / frame).rounded(.down)))
        guard from <= to else { return time }
        var best = from
        for index in from...to where levels[index] < levels[best] { best = index }
        return Double(best) * frame
    }
}
