import Foundation
import RunAnywhereTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Speech text splitting")
struct SpeechTextSplitterTests {
    @Test("Text splits into sentences, keeping their punctuation")
    func sentences() {
        let pieces = SpeechTextSplitter().split("Hello there! How are you? I am fine.\nNew line here")
        #expect(pieces == ["Hello there!", "How are you?", "I am fine.", "New line here"])
    }

    @Test("A 5,000-character text becomes pieces of at most the maximum length, losing no word")
    func longText() {
        let sentence = "This sentence keeps going, and going, with many words that never seem to stop at all"
        let text = Array(repeating: sentence, count: 60).joined(separator: " ")
        #expect(text.count >= 5000)
        let pieces = SpeechTextSplitter(maxLength: 300).split(text)
        #expect(pieces.allSatisfy { $0.count <= 300 })
        let words = { (s: String) in s.split(whereSeparator: { $0.isWhitespace }).map(String.init) }
        #expect(pieces.flatMap(words) == words(text))
    }

    @Test("Pieces with nothing to pronounce are dropped")
    func punctuationOnly() {
        #expect(SpeechTextSplitter().split("... — !!").isEmpty)
    }
}

@Suite("Voice activity tracking")
struct VoiceActivityTrackerTests {
    private func run(_ probabilities: [Float], _ configuration: VADConfiguration) -> [SpeechActivityEvent] {
        var tracker = VoiceActivityTracker(configuration: configuration, frameDuration: 0.032)
        var events = probabilities.compactMap { tracker.consume($0) }
        if let last = tracker.finish() { events.append(last) }
        return events
    }

    @Test("Speech is stamped where it began and ends where the silence began")
    func timestamps() {
        let frames: [Float] =
            Array(repeating: 0, count: 10) + Array(repeating: 0.9, count: 30) + Array(repeating: 0.1, count: 30)
        let events = run(frames, VADConfiguration(minSpeechDuration: 0.2, minSilenceDuration: 0.3))
        #expect(events.map(\.kind) == [.speechStarted, .speechEnded])
        // Each also carries the wall clock of its detection (the seed's timestamp), apart from
        // its place in the audio; the bound is loose enough for any clock adjustment.
        #expect(events.allSatisfy { abs($0.timestamp.timeIntervalSinceNow) < 3_600 })
        #expect(abs(events[0].time - 0.32) < 1e-9)
        #expect(abs(events[1].time - 1.28) < 1e-9)
        // The end carries how long the speech lasted; a segment the stream closes does too.
        #expect(events[0].duration == 0)
        #expect(abs(events[1].duration - 0.96) < 1e-9)
        let open = run(Array(repeating: 0, count: 10) + Array(repeating: 0.9, count: 20), VADConfiguration())
        #expect(abs(open.last!.duration - (0.96 - 0.32)) < 1e-9)
    }

    @Test("Bursts shorter than the minimum speech and dips shorter than the minimum silence change nothing")
    func hysteresis() {
        let burst: [Float] =
            Array(repeating: 0, count: 10) + Array(repeating: 1, count: 3) + Array(repeating: 0, count: 10)
        #expect(run(burst, VADConfiguration(minSpeechDuration: 0.25)).isEmpty)
        let dip: [Float] =
            Array(repeating: 1, count: 20) + Array(repeating: 0, count: 5) + Array(repeating: 1, count: 20)
        let events = run(dip, VADConfiguration(minSpeechDuration: 0.1, minSilenceDuration: 0.5))
        #expect(events.map(\.kind) == [.speechStarted, .speechEnded])
    }

    @Test("Configurations outside their ranges are refused")
    func invalidConfiguration() {
        #expect(throws: SDKException.self) { try VADConfiguration(threshold: 1.5).validate() }
        #expect(throws: SDKException.self) { try VADConfiguration(minSilenceDuration: -1).validate() }
        #expect(throws: SDKException.self) { try VADConfiguration(energyFloorDecibels: 3).validate() }
    }
}

@Suite("Energy VAD")
struct EnergyVADTests {
    @Test("A tone burst in quiet noise is speech; the noise alone is not")
    func toneInNoise() async throws {
        let vad = EnergyVADService()
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<16_000).map { _ in Float.random(in: -0.003...0.003, using: &generator) }
        let tone = sine(frequency: 300, sampleRate: 16_000, seconds: 1, amplitude: 0.3).samples
        let probabilities = try await vad.speechProbabilities(Array((noise + tone + noise).prefix(47 * 512 * 2)))
        let noiseFrames = probabilities[2..<30]  // settle on the floor first
        let toneFrames = probabilities[33..<60]
        #expect(noiseFrames.allSatisfy { $0 < 0.1 })
        #expect(toneFrames.allSatisfy { $0 > 0.9 })
    }

    /// One second of silence, one of a loud tone, one of silence, at 16 kHz: speech from 1 s to 2 s.
    private static func toneBetweenSilences() -> PCMAudio {
        var audio = PCMAudio.silence(duration: 1, sampleRate: 16_000)
        audio.append(sine(frequency: 300, sampleRate: 16_000, seconds: 1, amplitude: 0.3))
        audio.append(PCMAudio.silence(duration: 1, sampleRate: 16_000))
        return audio
    }

    @Test("A configured frame length is the frame the energy detector judges; unset, it is 512 samples")
    func configuredFrameLength() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.configureVAD(VADConfiguration(frameLength: 0.1))
            let frame = try #require(await sdk.vadFrameLength)
            #expect(abs(frame - 0.1) <= 1.0 / 16_000)
            #expect(try await sdk.vadConfiguration().frameLengthSeconds == 0.1)
            try await sdk.configureVAD(VADConfiguration())
            #expect(await sdk.vadFrameLength == 0.032)
            #expect(try await sdk.vadConfiguration().frameLengthSeconds == 0.032)
        }
    }

    @Test("Frame lengths outside 1 ms to 1 s, or not a number, are refused and change nothing")
    func invalidFrameLength() async throws {
        try await withDeterministicSDK { sdk in
            for frameLength: TimeInterval in [0, -1, 2, .nan] {
                await expectCode(.invalidInput) {
                    try await sdk.configureVAD(VADConfiguration(frameLength: frameLength))
                }
            }
            #expect(await sdk.vadFrameLength == 0.032)
        }
    }

    @Test("A configuration saved before the frame length existed decodes with none")
    func decodesWithoutFrameLength() throws {
        let json = #"{"threshold":0.4,"minSpeechDuration":0.2,"minSilenceDuration":0.3,"energyFloorDecibels":-45}"#
        let decoded = try JSONDecoder().decode(VADConfiguration.self, from: Data(json.utf8))
        let expected = VADConfiguration(
            threshold: 0.4,
            minSpeechDuration: 0.2,
            minSilenceDuration: 0.3,
            energyFloorDecibels: -45
        )
        #expect(decoded == expected)
        #expect(decoded.frameLength == nil)
        let framed = VADConfiguration(frameLength: 0.1)
        #expect(try JSONDecoder().decode(VADConfiguration.self, from: JSONEncoder().encode(framed)) == framed)
    }

    @Test(
        "Frames of 20 ms and of 100 ms each find the tone between silences, to within a frame",
        arguments: [0.02, 0.1]
    )
    func toneAtFrameLength(frameLength: TimeInterval) async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.configureVAD(VADConfiguration(frameLength: frameLength))
            let segments = try await sdk.detectSpeechSegments(in: Self.toneBetweenSilences())
            #expect(segments.count == 1)
            // Events are stamped where their run of frames began, so the minimum durations
            // delay them but do not move them.
            let segment = try #require(segments.first)
            #expect(abs(segment.start - 1) <= frameLength)
            #expect(abs(segment.end - 2) <= frameLength)
        }
    }

    @Test("Changing the frame length mid-stream keeps the stream's time and its speech state")
    func frameChangeMidStream() async throws {
        try await withDeterministicSDK { sdk in
            var events: [SpeechActivityEvent] = []
            // 512-sample frames, then 100 ms ones from halfway through the tone; half a second
            // is not a whole number of 512-sample frames, so samples are pending at the change.
            for (index, chunk) in Self.toneBetweenSilences().chunks(duration: 0.5).enumerated() {
                if index == 3 { try await sdk.configureVAD(VADConfiguration(frameLength: 0.1)) }
                events += try await sdk.detectVoiceActivity(chunk).events
            }
            #expect(events.map(\.kind) == [.speechStarted, .speechEnded])
            let start = try #require(events.first).time
            let end = try #require(events.last).time
            #expect(abs(start - 1) <= 0.032)
            #expect(abs(end - 2) <= 0.1)
        }
    }
}
