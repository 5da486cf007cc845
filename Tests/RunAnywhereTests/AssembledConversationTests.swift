import Foundation
import RunAnywhere
import Testing

@Suite("Assembled conversations")
struct AssembledConversationTests {
    /// A speech set of tones in a temporary folder: "low" has three clips at 16 kHz, a quiet 150 Hz
    /// tone of 1 s after 0.3 s of silence; "high" has two at 8 kHz, a loud 400 Hz tone of 0.8 s
    /// after 0.1 s; "hush" has one clip of silence.
    static func corpus() throws -> SpeechCorpus {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ra-conv-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("clips"),
            withIntermediateDirectories: true
        )
        func tone(
            rate: Int,
            lead: Double,
            length: Double,
            tail: Double,
            hertz: Double,
            amplitude: Float
        )
            -> PCMAudio
        {
            let silent = { (seconds: Double) in [Float](repeating: 0, count: Int(seconds * Double(rate))) }
            let sound = (0..<Int(length * Double(rate))).map { index in
                amplitude * Float(sin(2 * Double.pi * hertz * Double(index) / Double(rate)))
            }
            return PCMAudio(samples: silent(lead) + sound + silent(tail), sampleRate: rate)
        }
        var rows = ["id\tspeaker\tsource\tseconds\ttranscript\tfile"]
        func add(_ id: String, _ speaker: String, _ audio: PCMAudio) throws {
            try WAVFile.write(audio, to: folder.appendingPathComponent("clips/\(id).wav"))
            rows.append("\(id)\t\(speaker)\ttest\t\(audio.duration)\t\(id)\tclips/\(id).wav")
        }
        for number in 1...3 {
            let audio = tone(rate: 16_000, lead: 0.3, length: 1, tail: 0.2, hertz: 150, amplitude: 0.05)
            try add("low-\(number)", "low", audio)
        }
        for number in 1...2 {
            let audio = tone(rate: 8_000, lead: 0.1, length: 0.8, tail: 0.4, hertz: 400, amplitude: 0.5)
            try add("high-\(number)", "high", audio)
        }
        try add("hush-1", "hush", PCMAudio.silence(duration: 1, sampleRate: 16_000))
        try (rows.joined(separator: "\n") + "\n").write(
            to: folder.appendingPathComponent("manifest.tsv"),
            atomically: true,
            encoding: .utf8
        )
        return try SpeechCorpus(folder: folder)
    }

    /// The level of `samples`, in dBFS.
    static func level(_ samples: ArraySlice<Float>) -> Float {
        PCMAudio.decibels(rms: PCMAudio.rms(samples))
    }

    @Test("Turns alternate, the truth spans each clip's sound without its silence, and every turn is as loud")
    func assembly() throws {
        let corpus = try Self.corpus()
        defer { try? FileManager.default.removeItem(at: corpus.folder) }
        let conversation = try AssembledConversation.make(from: corpus, speakers: ["low", "high"], turns: 7, seed: 9)
        #expect(conversation.audio.sampleRate == 16_000)
        #expect(conversation.audio.channels == 1)
        #expect(conversation.truth.count == 7)
        #expect(Set(conversation.speakers) == ["low", "high"])
        #expect(conversation.truth.first?.speaker == 0)
        let rate = Double(conversation.audio.sampleRate)
        var previous: SpeakerSegment?
        for segment in conversation.truth {
            let name = conversation.speakers[segment.speaker]
            let expected = name == "low" ? 1.0 : 0.8
            #expect(abs(segment.duration - expected) < 0.03, "\(name) turn of \(segment.duration) s")
            let samples = conversation.audio.samples[Int(segment.start * rate)..<Int(segment.end * rate)]
            #expect(abs(Self.level(samples) - -23) < 1, "\(name) turn at \(Self.level(samples)) dBFS")
            if let previous {
                #expect(previous.speaker != segment.speaker)
                // The pause, at least 0.3 s: faint noise, not digital silence.
                #expect(segment.start - previous.end >= 0.3)
                // 50 ms in from either side, clear of the turns' edges.
                let quiet = Int(previous.end * rate) + 800..<Int(segment.start * rate) - 800
                let pause = conversation.audio.samples[quiet]
                #expect(Self.level(pause) < -60)
                #expect(Self.level(pause) > -80)
            }
            previous = segment
        }
        #expect(conversation.truth.first.map { $0.start >= 0.3 } == true)
        #expect(conversation.truth.last.map { $0.end <= conversation.audio.duration - 0.3 } == true)
    }

    @Test("The same seed gives the same conversation, and each speaker's first turn is in the opening round")
    func determinism() throws {
        let corpus = try Self.corpus()
        defer { try? FileManager.default.removeItem(at: corpus.folder) }
        let first = try AssembledConversation.make(from: corpus, speakers: ["high", "low"], turns: 5, seed: 3)
        let again = try AssembledConversation.make(from: corpus, speakers: ["high", "low"], turns: 5, seed: 3)
        #expect(first.audio == again.audio)
        #expect(first.truth == again.truth)
        #expect(first.speakers == again.speakers)
        let other = try AssembledConversation.make(from: corpus, speakers: ["high", "low"], turns: 5, seed: 4)
        #expect(other.audio != first.audio)
        #expect(first.truth.prefix(2).map(\.speaker) == [0, 1])
    }

    @Test("One speaker, an unknown speaker, or a speaker with nothing audible is refused")
    func refusals() throws {
        let corpus = try Self.corpus()
        defer { try? FileManager.default.removeItem(at: corpus.folder) }
        let alone = #expect(throws: SDKException.self) {
            _ = try AssembledConversation.make(from: corpus, speakers: ["low"], turns: 4, seed: 1)
        }
        #expect(alone?.code == .invalidInput)
        let unknown = #expect(throws: SDKException.self) {
            _ = try AssembledConversation.make(from: corpus, speakers: ["low", "nobody"], turns: 4, seed: 1)
        }
        #expect(unknown?.code == .invalidInput)
        let silent = #expect(throws: SDKException.self) {
            _ = try AssembledConversation.make(from: corpus, speakers: ["low", "hush"], turns: 4, seed: 1)
        }
        #expect(silent?.code == .invalidAudio)
    }
}
