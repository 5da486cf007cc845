import Foundation
import RunAnywhereTestSupport
import RunAnywhereTesting
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("SSML")
struct SSMLTests {
    @Test("The subset parses into text with its prosody and pauses, nested prosody multiplying")
    func parses() throws {
        let document = try SSMLDocument(
            parsing: """
                <?xml version="1.0"?>
                <speak version="1.0" xml:lang="en-US">
                  <p><s>Hello &amp; welcome.</s><s>Second &#x263A; one.</s></p>
                  <break time="750ms"/><break strength="strong"/>
                  <!-- a comment -->
                  <prosody rate="slow" volume="+6dB">Slow <prosody rate="200%" pitch="+2st">and fast</prosody></prosody>
                  Code <say-as interpret-as="characters">RA7</say-as>.
                </speak>
                """
        )
        let segments = document.segments
        #expect(segments.count == 9, "\(segments)")
        #expect(segments[0] == .text("Hello & welcome.", rate: 1, pitch: 1, volume: 1))
        #expect(segments[1] == .pause(0.25))
        #expect(segments[2] == .text("Second ☺ one.", rate: 1, pitch: 1, volume: 1))
        // The sentence's and the paragraph's pauses, then the two breaks, merged into one.
        #expect(segments[3] == .pause(0.25 + 0.5 + 0.75 + 0.7))
        guard case .text("Slow", let rate, 1, let volume) = segments[4] else {
            Issue.record("\(segments[4])")
            return
        }
        #expect(rate == 0.75)
        #expect(abs(volume - 1.995) < 0.01)
        guard case .text("and fast", let fastRate, let pitch, _) = segments[5] else {
            Issue.record("\(segments[5])")
            return
        }
        #expect(fastRate == 1.5)
        #expect(abs(pitch - 1.1225) < 0.001)
        #expect(segments[6] == .text("Code", rate: 1, pitch: 1, volume: 1))
        #expect(segments[7] == .text("R A 7", rate: 1, pitch: 1, volume: 1))
        #expect(segments[8] == .text(".", rate: 1, pitch: 1, volume: 1))
        #expect(
            try SSMLDocument(parsing: "Plain text, no markup.").segments == [
                .text("Plain text, no markup.", rate: 1, pitch: 1, volume: 1)
            ]
        )
    }

    @Test(
        "Malformed SSML and markup outside the subset are invalid_ssml errors naming the line and column",
        arguments: [
            ("<speak>Hello", "<speak> is never closed", "line 1, column 1"),
            ("<speak>\n  <audio src=\"x.wav\"/>\n</speak>", "<audio> is not in the SSML subset", "line 2, column 3"),
            ("<speak><prosody speed=\"2\">x</prosody></speak>", "takes no attribute speed", "line 1, column 8"),
            ("<prosody rate=\"warp\">x</prosody>", "rate \"warp\" is not understood", "line 1, column 1"),
            ("a <break time=\"20s\"/> b", "must be 0 to 10s", "line 1, column 3"),
            ("a <break time=\"soon\"/> b", "break time \"soon\"", "line 1, column 3"),
            ("<s>a</p>", "</p> closes nothing: <s> is open", "line 1, column 5"),
            ("Tom &jerry; here", "&jerry; is not an entity", "line 1, column 5"),
            ("<prosody rate=slow>x</prosody>", "must be quoted", "line 1, column 15"),
            ("Hi <speak>there</speak>", "<speak> must be the root", "line 1, column 4"),
            (
                "<say-as interpret-as=\"date\">1/2</say-as>", "interpret-as=\"date\" is not supported",
                "line 1, column 1"
            ),
            ("<break time=\"1s\">x</break>", "<break> must be empty", "line 1, column 1"),
        ]
    )
    func errors(source: String, problem: String, position: String) {
        do throws(SDKException) {
            _ = try SSMLDocument(parsing: source)
            Issue.record("\(source) parsed")
        } catch {
            #expect(error.code == .invalidSSML)
            #expect(error.message.contains(problem), "\(error.message)")
            #expect(error.message.contains(position), "\(error.message)")
        }
    }

    @Test("On the deterministic voice, breaks become silence, prosody scales the volume, and every word gets a timing")
    func deterministicVoice() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadTTSModel(DeterministicModels.tts)
            let plain = try await sdk.synthesize("One two. Three four.")
            let paused = try await sdk.synthesize(
                "<speak>One two.<break time=\"1s\"/>Three four.</speak>",
                options: TTSOptions(ssml: true)
            )
            #expect(abs(paused.duration - plain.duration - 1) < 0.05, "\(plain.duration) s, \(paused.duration) s")
            for output in [plain, paused] {
                #expect(output.wordTimings.map(\.text) == ["One", "two.", "Three", "four."])
                #expect(
                    output.wordTimings.allSatisfy {
                        $0.estimated && $0.start <= $0.end && $0.end <= output.duration + 0.001
                    }
                )
                #expect(
                    zip(output.wordTimings, output.wordTimings.dropFirst()).allSatisfy { $0.end <= $1.start + 0.001 }
                )
            }
            // "Three" comes after the second of silence.
            let three = try #require(paused.wordTimings.first { $0.text == "Three" })
            let twoEnd = try #require(paused.wordTimings.first { $0.text == "two." }).end
            #expect(three.start - twoEnd >= 0.95, "\(paused.wordTimings)")

            let loud = try await sdk.synthesize(
                "<prosody volume=\"x-soft\">Quiet words.</prosody>",
                options: TTSOptions(ssml: true)
            )
            let normal = try await sdk.synthesize("Quiet words.")
            #expect(loud.audio.rmsDecibels < normal.audio.rmsDecibels - 6)
            await #expect(throws: SDKException.self) {
                try await sdk.synthesize("<speak>broken", options: TTSOptions(ssml: true))
            }
            await #expect(throws: SDKException.self) {
                try await sdk.synthesize("<speak><break time=\"1s\"/></speak>", options: TTSOptions(ssml: true))
            }
        }
    }
}
