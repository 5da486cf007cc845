import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

/// The system voice (espeak-ng), which needs no model.
@Suite("The system voice", .serialized, .wholeMachine, .tags(.realEngine))
struct SystemVoiceTests {
    @Test("The system voice speaks audibly, for about as long as the sentence takes, with no model")
    func systemVoice() async throws {
        try await withSDK(models: []) { sdk in
            let output = try await sdk.synthesize("Hello from the built in system voice.")
            print(
                "system voice: \(output.voice), \(String(format: "%.2f", output.duration)) s, \(output.audio.rmsDecibels) dBFS"
            )
            #expect(output.voice.hasPrefix("espeak-ng:"))
            #expect(output.duration > 1.2 && output.duration < 4.5)
            #expect(output.audio.rmsDecibels > -30)
            let voices = try await sdk.availableTTSVoices()
            #expect(voices.contains { $0.id == "espeak-ng:en-us" && $0.isSystem })
        }
    }

    @Test("A 5,000-character text is spoken in chunks, none longer than 300 characters")
    func longText() async throws {
        try await withSDK(models: []) { sdk in
            let sentence =
                "This long text keeps on going, clause after clause, so that the voice has to cope with far more than one breath can hold"
            let text = Array(repeating: sentence, count: 42).joined(separator: " ") + "."
            #expect(text.count >= 5000)
            var chunks = 0
            var seconds = 0.0
            for try await piece in sdk.synthesizeSentences(
                text,
                options: TTSOptions(voice: "espeak-ng:en-us", rate: 2)
            ) {
                #expect(piece.text.count <= 300)
                chunks += 1
                seconds += piece.duration
            }
            #expect(chunks >= 17)
            #expect(seconds > 60)
        }
    }
}
