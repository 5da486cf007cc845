import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

extension RealEngineTests {
    @Suite("SSML and word timings on the real voices")
    struct SSMLRealTests {
        static let markup = """
            <speak><s>Turn on the kitchen lights.</s><break time="800ms"/>\
            <prosody rate="slow">Then call <say-as interpret-as="characters">ABC</say-as>.</prosody></speak>
            """

        @Test(
            "espeak-ng reports its word timings; the break is silence; slow prosody is slower; Piper's timings are estimated"
        )
        func voices() async throws {
            try await withSDK(models: DefaultModels.speech) { sdk in
                try await sdk.loadTTSModel(DefaultModels.ttsId)
                try await sdk.loadSTTModel(DefaultModels.sttId)
                for voice in ["espeak-ng:en-us", DefaultModels.ttsId] {
                    let options = TTSOptions(voice: voice, ssml: true)
                    let output = try await sdk.synthesize(Self.markup, options: options)
                    let plain = try await sdk.synthesize(
                        "Turn on the kitchen lights. Then call A B C.",
                        options: TTSOptions(voice: voice)
                    )
                    let timings = output.wordTimings
                    print(
                        "ssml \(voice): \(String(format: "%.2f", output.duration)) s (plain \(String(format: "%.2f", plain.duration)) s); "
                            + timings.map {
                                "\($0.text)@\(String(format: "%.2f", $0.start))-\(String(format: "%.2f", $0.end))"
                            }
                            .joined(separator: " ")
                    )
                    #expect(
                        timings.map(\.text) == [
                            "Turn", "on", "the", "kitchen", "lights.", "Then", "call", "A", "B", "C",
                        ]
                    )
                    if voice == "espeak-ng:en-us" {
                        // espeak-ng reports most words itself; a few short ones run into a neighbour.
                        #expect(timings.filter { !$0.estimated }.count >= timings.count * 3 / 4, "\(timings)")
                    } else {
                        #expect(timings.allSatisfy { $0.estimated })
                    }
                    #expect(timings.allSatisfy { $0.start <= $0.end && $0.end <= output.duration + 0.01 })
                    #expect(zip(timings, timings.dropFirst()).allSatisfy { $0.start <= $1.start })
                    // The 800 ms break (and the sentence's pause) lie between "lights." and "Then", silent.
                    let lights = try #require(timings.first { $0.text == "lights." })
                    let then = try #require(timings.first { $0.text == "Then" })
                    #expect(then.start - lights.start >= 0.8, "\(timings)")
                    let gap = output.audio.slice(from: lights.end + 0.15, to: then.start - 0.05)
                    #expect(
                        gap.duration >= 0.5 && gap.rmsDecibels < -45,
                        "\(gap.duration) s at \(gap.rmsDecibels) dBFS"
                    )
                    // Slow prosody on the second sentence and the break make the whole longer.
                    #expect(output.duration > plain.duration + 0.8)
                    // Whisper still hears the words through the markup's pauses and prosody.
                    let heard = try await sdk.transcribe(output.audio).text
                    #expect(words(heard).contains("kitchen"), "\(heard)")
                }

                // espeak-ng's own timings against the SDK's estimate on the same audio.
                let espeak = try await sdk.synthesize(
                    "The quick brown fox jumps over the lazy dog.",
                    options: TTSOptions(voice: "espeak-ng:en-us")
                )
                let estimated = TTSWordTiming.estimate(espeak.text, in: espeak.audio)
                try #require(estimated.count == espeak.wordTimings.count)
                let pairs = zip(estimated, espeak.wordTimings).filter { !$0.1.estimated }
                let error = pairs.map { abs($0.0.start - $0.1.start) }.reduce(0, +) / Double(pairs.count)
                print(
                    "ssml: estimated word starts are \(String(format: "%.0f", error * 1000)) ms from espeak-ng's, on average"
                )
                #expect(error < 0.3)
            }
        }

        @Test("speak --ssml --json gives the duration and the word timings; malformed SSML names its position")
        func speakCommand() throws {
            try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ra-ssml-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let wav = folder.appendingPathComponent("out.wav").path
            let run = try cli([
                "speak", "--ssml", "<speak>Hello <break time=\"500ms\"/> world</speak>", "--voice", "espeak-ng:en-us",
                "--out", wav, "--json",
            ])
            #expect(run.status == 0, "\(run.err)")
            let report = try json(Substring(run.out))
            let duration = try #require(report["duration"] as? Double)
            let words = try #require(report["words"] as? [[String: Any]])
            #expect(words.map { $0["text"] as? String } == ["Hello", "world"])
            #expect(words.allSatisfy { $0["estimated"] as? Bool == false })
            let second = try #require(words.last?["start"] as? Double)
            #expect(second >= 0.5 && second < duration, "\(run.out)")
            let broken = try cli([
                "speak", "--ssml", "<speak>\n<prosody rate=\"warp\">x</prosody></speak>", "--out", wav,
            ])
            #expect(broken.status == 1)
            #expect(broken.err.contains("[invalid_ssml]") && broken.err.contains("line 2, column 1"), "\(broken.err)")
        }
    }
}
