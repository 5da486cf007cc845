import Foundation
import Synchronization
import Testing

@testable import RunAnywhere

/// The voice agent's sentence-speaking rules, with fake synthesis and playback.
@Suite("Reply speaking")
struct ReplySpeakerTests {
    /// One second of audio per sentence, at 22.05 kHz, with the sentence's length as its level.
    static func speech(_ sentence: String) -> TTSOutput {
        let audio = PCMAudio(
            samples: [Float](repeating: Float(sentence.count) / 100, count: 22_050),
            sampleRate: 22_050
        )
        return TTSOutput(audio: audio, text: sentence, voice: "fake", processingTimeMs: 1)
    }

    static func sentences(_ list: [String]) -> AsyncStream<String> {
        AsyncStream { continuation in
            for sentence in list { continuation.yield(sentence) }
            continuation.finish()
        }
    }

    /// Events and plays recorded in order.
    final class Recorder: Sendable {
        let events = Mutex<[VoiceEvent]>([])
        let played = Mutex<[Int]>([])
        var names: [String] { events.withLock { $0.map(\.name) } }
    }

    /// An output that records what it is asked to play and, when told to, fails.
    struct FakeOutput: AudioOutput {
        let recorder: Recorder
        var fails = false

        func play(_ buffer: PCMAudio) async throws(SDKException) {
            recorder.played.withLock { $0.append(buffer.samples.count) }
            if fails { throw SDKException(.audioDeviceUnavailable, "unplugged") }
        }

        func stop() async {}
    }

    @Test("Sentences are synthesized, reported and played in order, and their audio is joined")
    func inOrder() async {
        let recorder = Recorder()
        let speaker = ReplySpeaker(
            synthesize: { Self.speech($0) },
            output: FakeOutput(recorder: recorder),
            emit: { event in recorder.events.withLock { $0.append(event) } }
        )
        let spoken = await speaker.speak(Self.sentences(["One.", "Two words.", "Three more words."]))
        #expect(spoken.audio.duration == 3)
        #expect(spoken.audio.sampleRate == 22_050)
        #expect(spoken.firstAudio != nil)
        #expect(spoken.synthesisMs >= spoken.firstChunkMs)
        let sentences = recorder.events.withLock { events in
            events.compactMap { if case .audioChunk(_, let sentence) = $0 { sentence } else { nil } }
        }
        #expect(sentences == ["One.", "Two words.", "Three more words."])
        #expect(recorder.played.withLock { $0 } == [22_050, 22_050, 22_050])
    }

    @Test("A sentence with nothing to say is skipped silently; a failing one is reported and the rest is spoken")
    func synthesisFailures() async {
        let recorder = Recorder()
        let speaker = ReplySpeaker(
            synthesize: { sentence throws(SDKException) in
                if sentence == "..." { throw SDKException(.emptyText, "nothing to pronounce") }
                if sentence == "Broken." { throw SDKException(.backendError, "the voice failed") }
                return Self.speech(sentence)
            },
            output: nil,
            emit: { event in recorder.events.withLock { $0.append(event) } }
        )
        let spoken = await speaker.speak(Self.sentences(["First.", "...", "Broken.", "Last."]))
        #expect(spoken.audio.duration == 2)
        #expect(recorder.names == ["audio_chunk", "error", "audio_chunk"])
    }

    @Test("The first playback failure is reported once and playback stops, but the audio still reaches the result")
    func playbackFailure() async {
        let recorder = Recorder()
        let speaker = ReplySpeaker(
            synthesize: { Self.speech($0) },
            output: FakeOutput(recorder: recorder, fails: true),
            emit: { event in recorder.events.withLock { $0.append(event) } }
        )
        let spoken = await speaker.speak(Self.sentences(["One.", "Two.", "Three."]))
        #expect(spoken.audio.duration == 3)
        #expect(recorder.played.withLock { $0.count } == 1)
        #expect(recorder.names == ["audio_chunk", "error", "audio_chunk", "audio_chunk"])
    }

    @Test("Cancelling stops at the next sentence")
    func cancellation() async {
        let (sentences, sink) = AsyncStream<String>.makeStream()
        let (events, eventSink) = AsyncStream<VoiceEvent>.makeStream()
        let speaker = ReplySpeaker(synthesize: { Self.speech($0) }, output: nil, emit: { eventSink.yield($0) })
        let task = Task { await speaker.speak(sentences) }
        sink.yield("Before.")
        var names: [String] = []
        for await event in events {
            names.append(event.name)
            break  // the first sentence is spoken: cancel before the next one arrives
        }
        task.cancel()
        sink.yield("After.")
        sink.finish()
        let spoken = await task.value
        eventSink.finish()
        for await event in events { names.append(event.name) }
        #expect(spoken.audio.duration == 1)
        #expect(names == ["audio_chunk"])
    }
}
