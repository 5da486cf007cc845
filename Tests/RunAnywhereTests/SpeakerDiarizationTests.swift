import Foundation
import RunAnywhereTestSupport
import RunAnywhereTesting
import Testing

@testable import RunAnywhere

/// Diarization over the deterministic speaker encoder (a voice is a pitch): windows,
/// clustering, dating and the transcript by speaker, in milliseconds.
@Suite("Speaker diarization")
struct SpeakerDiarizationTests {
    /// Coded utterances of the given voices, each followed by `gap` seconds of silence;
    /// with where each one's tone starts and ends.
    static func conversation(
        _ turns: [(voice: Int, text: String)],
        gap: Double = 0.8
    ) -> (audio: PCMAudio, truth: [SpeakerSegment]) {
        // The silence the deterministic voice puts around each utterance.
        let padding = 0.15
        var audio = PCMAudio.silence(duration: 0.5, sampleRate: 16_000)
        var truth: [SpeakerSegment] = []
        for turn in turns {
            let start = audio.duration + padding
            audio.append(DeterministicBackend.speech(for: turn.text, voice: turn.voice))
            truth.append(SpeakerSegment(speaker: turn.voice, start: start, end: audio.duration - padding))
            audio.append(.silence(duration: gap, sampleRate: 16_000))
        }
        return (audio, truth)
    }

    static let turns: [(voice: Int, text: String)] = [
        (0, "Good morning, shall we start with the budget for the next quarter?"),
        (1, "Yes, the numbers came in yesterday and they look better than expected."),
        (0, "Good. What about the hiring plan we discussed last week?"),
        (2, "I can take that one: two engineers and a designer, starting in March."),
        (1, "And the office move is still on for April."),
    ]

    @Test("Clustering finds two well-separated voices by itself, and exactly as many as asked for")
    func clustering() {
        let a: [Float] = [1, 0, 0]
        let a2 = VectorMath.normalized([0.95, 0.1, 0])
        let b: [Float] = [0, 1, 0]
        let b2 = VectorMath.normalized([0.1, 0.9, 0.1])
        let vectors = [a, b, a2, b2, a]
        #expect(SpeakerClustering.cluster(vectors, count: nil, threshold: 0.7, maximum: 8) == [0, 1, 0, 1, 0])
        #expect(SpeakerClustering.cluster(vectors, count: 1, threshold: 0.7, maximum: 8) == [0, 0, 0, 0, 0])
        #expect(Set(SpeakerClustering.cluster(vectors, count: 3, threshold: 0.7, maximum: 8)).count == 3)
        // More groups than vectors is as many as there are vectors.
        #expect(SpeakerClustering.cluster([a, b], count: 5, threshold: 0.7, maximum: 8) == [0, 1])
        // A threshold nothing reaches keeps every vector apart, up to the maximum.
        #expect(Set(SpeakerClustering.cluster(vectors, count: nil, threshold: 1, maximum: 2)).count == 2)
        #expect(SpeakerClustering.cluster([], count: nil, threshold: 0.7, maximum: 8).isEmpty)
        #expect(SpeakerClustering.cluster([a], count: nil, threshold: 0.7, maximum: 8) == [0])
    }

    @Test("Long speech is cut into half-overlapping windows ending with it; a syllable gets none")
    func windows() {
        let speech = [
            SpeechSegment(start: 0, end: 0.3),
            SpeechSegment(start: 1, end: 1.8),
            SpeechSegment(start: 2, end: 5),
        ]
        let windows = DiarizationCapability.windows(in: speech, length: 1.6)
        #expect(windows.first == DiarizationCapability.Window(start: 1, end: 1.8))
        let long = windows.dropFirst()
        #expect(long.map(\.start) == [2, 2.8, 3.4])
        #expect(long.allSatisfy { abs($0.duration - 1.6) < 1e-9 })
        // The syllable takes the speaker of the nearest window.
        let segments = DiarizationCapability.segments(speech: speech, windows: windows, labels: [1, 0, 0, 0])
        #expect(segments.map(\.speaker) == [0, 0, 1])
        #expect(segments.first == SpeakerSegment(speaker: 0, start: 0, end: 0.3))
    }

    @Test("A change of speaker inside one stretch of speech falls in its quietest moment near the midpoint")
    func boundaryInPause() {
        // 20 ms levels: loud, with a dip at 1.10 s and a deeper one far away at 0.2 s.
        var levels = [Float](repeating: -20, count: 150)
        levels[55] = -50
        levels[10] = -90
        #expect(abs(DiarizationCapability.quietest(near: 1.2, within: 0.5...2.0, levels: levels) - 1.1) < 1e-9)
        // The search stays inside the range, and without levels the midpoint stands.
        #expect(DiarizationCapability.quietest(near: 1.2, within: 1.15...2.0, levels: levels) >= 1.15)
        #expect(DiarizationCapability.quietest(near: 1.2, within: 0.5...2.0, levels: []) == 1.2)
    }

    @Test("Clustering ignores weights that do not fit the vectors, and a window barely past another is merged into it")
    func robustHelpers() {
        let vectors: [[Float]] = [[1, 0], [0, 1], [1, 0]]
        for weights in [[1.0], [1, -1, 1], [1, .nan, 1]] {
            #expect(
                SpeakerClustering.cluster(vectors, weights: weights, count: 2, threshold: 0.5, maximum: 8) == [0, 1, 0]
            )
        }
        let windows = DiarizationCapability.windows(in: [SpeechSegment(start: 0, end: 1.61)], length: 1.6)
        #expect(windows == [DiarizationCapability.Window(start: 0, end: 1.61)])
        #expect(DiarizationCapability.windows(in: [SpeechSegment(start: 0, end: 3)], length: 0).isEmpty)
    }

    @Test("Three voices in a conversation are found, numbered by first appearance and dated within 0.2 s")
    func diarizesConversation() async throws {
        let (audio, truth) = Self.conversation(Self.turns)
        try await withDeterministicSDK { sdk in
            try await sdk.loadDiarizationModel(DeterministicModels.speakerEncoder)
            for options in [DiarizationOptions(), DiarizationOptions(speakerCount: 3)] {
                let segments = try await sdk.diarize(audio, options: options)
                #expect(segments.map(\.speaker) == truth.map(\.speaker), "\(segments)")
                for (segment, expected) in zip(segments, truth) {
                    #expect(abs(segment.start - expected.start) < 0.2 && abs(segment.end - expected.end) < 0.2)
                }
            }
            // Told there are two, the two closest voices merge.
            let two = try await sdk.diarize(audio, options: DiarizationOptions(speakerCount: 2))
            #expect(Set(two.map(\.speaker)) == [0, 1])
        }
    }

    @Test("A transcript by speaker: each turn's words carry who said them")
    func transcribesBySpeaker() async throws {
        let (audio, _) = Self.conversation(Self.turns)
        try await withDeterministicSDK { sdk in
            try await sdk.loadSTTModel(DeterministicModels.stt)
            try await sdk.loadDiarizationModel(DeterministicModels.speakerEncoder)
            let output = try await sdk.transcribe(audio, options: STTOptions(diarize: true))
            #expect(output.segments.map(\.text) == Self.turns.map(\.text))
            #expect(output.segments.map(\.speaker) == Self.turns.map(\.voice))
            #expect(output.text == Self.turns.map(\.text).joined(separator: " "))
            #expect(output.modelId == DeterministicModels.stt)
            // Without diarization, no segment names a speaker.
            let plain = try await sdk.transcribe(audio)
            #expect(plain.segments.allSatisfy { $0.speaker == nil })
        }
    }

    @Test(
        "Diarizing without an encoder, with bad options or bad audio, or loading the wrong kind of model is a typed error"
    )
    func errors() async throws {
        let (audio, _) = Self.conversation(Array(Self.turns.prefix(2)))
        try await withDeterministicSDK { sdk in
            let missing = await #expect(throws: SDKException.self) { try await sdk.diarize(audio) }
            #expect(missing?.code == .modelNotLoaded)
            try await sdk.loadSTTModel(DeterministicModels.stt)
            let transcript = await #expect(throws: SDKException.self) {
                try await sdk.transcribe(audio, options: STTOptions(diarize: true))
            }
            #expect(transcript?.code == .modelNotLoaded)
            let wrongKind = await #expect(throws: SDKException.self) {
                try await sdk.loadDiarizationModel(DeterministicModels.stt)
            }
            #expect(wrongKind?.code == .invalidInput)
            try await sdk.loadDiarizationModel(DeterministicModels.speakerEncoder)
            for options in [
                DiarizationOptions(speakerCount: 0), DiarizationOptions(maximumSpeakers: 0),
                DiarizationOptions(similarityThreshold: .nan), DiarizationOptions(similarityThreshold: 2),
            ] {
                let error = await #expect(throws: SDKException.self) { try await sdk.diarize(audio, options: options) }
                #expect(error?.code == .invalidInput)
            }
            let empty = await #expect(throws: SDKException.self) {
                try await sdk.diarize(PCMAudio(samples: [], sampleRate: 16_000))
            }
            #expect(empty?.code == .invalidAudio)
            let nan = await #expect(throws: SDKException.self) {
                try await sdk.diarize(PCMAudio(samples: [0, .nan, 0], sampleRate: 16_000))
            }
            #expect(nan?.code == .invalidAudio)
            // Silence has no speakers; speech too short to tell voices apart is one speaker.
            #expect(try await sdk.diarize(.silence(duration: 2, sampleRate: 16_000)).isEmpty)
            let short = Self.conversation([(0, "Hi"), (1, "Yo")], gap: 1)
            let shortSegments = try await sdk.diarize(short.audio)
            #expect(!shortSegments.isEmpty && shortSegments.allSatisfy { $0.speaker == 0 }, "\(shortSegments)")
            // The encoder is still there after all that.
            #expect(await sdk.currentDiarizationModel?.id == DeterministicModels.speakerEncoder)
            #expect(try await sdk.diarize(audio).map(\.speaker) == [0, 1])
        }
    }
}
