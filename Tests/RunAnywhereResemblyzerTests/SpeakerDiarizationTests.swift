import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere
@testable import RunAnywhereResemblyzer

@Suite("Speaker diarization", .serialized, .wholeMachine, .tags(.realEngine))
struct SpeakerDiarizationTests {
    /// What scripts/resemblyzer_reference.py computes for one recording.
    struct Reference: Decodable {
        var frames: Int
        var mel_first_frame: [Float]
        var partials: [[Float]]
        var embedding: [Float]
    }

    static func encoderFile() throws -> URL {
        try #require(try DefaultModels.model(DefaultModelIds.diarization).localPath)
    }

    @Test("The Swift speaker encoder matches a numpy forward pass of the same weights on real recordings")
    func encoderMatchesReference() async throws {
        let corpus = try SpeechCorpus.bootstrapped()
        let file = try Self.encoderFile()
        let network = try ResemblyzerNetwork(file: file)
        // Recorded at 16 kHz (the reference reads no other rate): a short clip, padded
        // into one partial, and longer ones of several partials, from different people.
        var checked = 0
        for clip in corpus.clips
        where ["ps-cards-002", "ps-goforward", "jfk"].contains(clip.id)
            || clip.speaker == "librivox-reader" && checked < 4
        {
            let audio = try WAVFile.read(contentsOf: clip.file)
            guard audio.sampleRate == 16_000 else { continue }
            let output = try runPythonScript(
                "resemblyzer_reference.py",
                ["--model", file.path, "--wav", clip.file.path]
            )
            let reference = try JSONDecoder().decode(Reference.self, from: output)
            let samples = audio.speechInput().samples
            let partials = network.partials(of: ResemblyzerNetwork.normalizedVolume(samples))
            #expect(partials.count == reference.partials.count, "\(clip.id)")
            // The first mel frame, relative to its largest band.
            let mel = Array(partials[0].prefix(ResemblyzerNetwork.melBands))
            let scale = max(reference.mel_first_frame.max() ?? 1, 1e-12)
            let melError = zip(mel, reference.mel_first_frame).map { abs($0 - $1) / scale }.max() ?? 1
            #expect(melError < 1e-4, "\(clip.id): mel frame off by \(melError) of its largest band")
            let vectors = network.forward(partials)
            for (vector, expected) in zip(vectors, reference.partials) {
                let cosine = VectorMath.cosine(vector, expected)
                #expect(cosine > 0.9999, "\(clip.id): partial cosine \(cosine)")
            }
            let embedding = try #require(network.embed([samples]).first)
            let largest = zip(embedding, reference.embedding).map { abs($0 - $1) }.max() ?? 1
            #expect(largest < 1e-3, "\(clip.id): embedding off by \(largest)")
            checked += 1
        }
        #expect(checked >= 5, "only \(checked) recordings at 16 kHz in the speech set")
    }

    @Test("Conversations assembled from real recordings of different people are diarized with a DER under 5%")
    func conversationsOfRealRecordings() async throws {
        let corpus = try SpeechCorpus.bootstrapped()
        let conversations = try AssembledConversation.standardSet(from: corpus)
        try await withSDK(models: [DefaultModels.vadId, DefaultModelIds.diarization]) { sdk in
            try await sdk.loadVADModel(DefaultModels.vadId)
            try await sdk.loadDiarizationModel(DefaultModelIds.diarization)
            for estimated in [false, true] {
                var scores: [DiarizationErrorRate] = []
                for (name, conversation) in conversations {
                    let options = DiarizationOptions(speakerCount: estimated ? nil : conversation.speakers.count)
                    let segments = try await sdk.diarize(conversation.audio, options: options)
                    let score = DiarizationErrorRate(reference: conversation.truth, hypothesis: segments)
                    print("\(name), \(estimated ? "estimated" : "known") count: DER \(score.rate)")
                    #expect(score.rate < 0.15, "\(name): DER \(score.rate)")
                    scores.append(score)
                }
                let total = DiarizationErrorRate(combining: scores)
                // Measured 1.6% both ways (bench diarize); the bound leaves room for other machines.
                #expect(total.rate < 0.05, "\(estimated ? "estimated" : "known") count: DER \(total.rate)")
            }
        }
    }

    @Test("A transcript by speaker of a real conversation gives each person's words their own label")
    func transcriptBySpeaker() async throws {
        let corpus = try SpeechCorpus.bootstrapped()
        let (_, conversation) = try #require(
            try AssembledConversation.standardSet(from: corpus).first { $0.name == "librivox-alsa-jfk" }
        )
        try await withSDK(models: DefaultModels.speech + [DefaultModelIds.diarization]) { sdk in
            try await sdk.loadSTTModel(DefaultModels.sttId)
            try await sdk.loadVADModel(DefaultModels.vadId)
            try await sdk.loadDiarizationModel(DefaultModelIds.diarization)
            let output = try await sdk.transcribe(conversation.audio, options: STTOptions(diarize: true))
            #expect(!output.text.isEmpty)
            #expect(output.segments.allSatisfy { $0.speaker != nil && !$0.text.isEmpty })
            let labelled = output.segments.map {
                SpeakerSegment(speaker: $0.speaker ?? -1, start: $0.start, end: $0.end)
            }
            #expect(Set(labelled.map(\.speaker)) == [0, 1, 2])
            // Whisper's segments run a little past the words; the speakers must still be right.
            let score = DiarizationErrorRate(reference: conversation.truth, hypothesis: labelled, collar: 0.5)
            #expect(score.confusion < 0.05 * score.referenceSpeech, "confusion \(score.confusion) s")
            // JFK's words are his.
            let jfk = try #require(conversation.speakers.firstIndex(of: "jfk"))
            let jfkLabel = try #require(score.mapping.first { $0.value == jfk }?.key)
            let jfkWords = output.segments.filter { $0.speaker == jfkLabel }.map(\.text).joined(separator: " ")
            #expect(jfkWords.lowercased().contains("country"), "\(jfkWords)")
        }
    }

    @Test("Another GGUF, a truncated encoder or a text file is a typed error on load, and nothing is loaded")
    func badEncoderFiles() async throws {
        let good = try Data(contentsOf: Self.encoderFile())
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ra-encoder-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let minilm = try #require(try DefaultModels.model(DefaultModelIds.embedding).localPath)
        var cases: [(name: String, file: URL, code: SDKException.Code)] = [
            ("another GGUF (MiniLM)", minilm, .invalidModelFormat)
        ]
        let truncated = folder.appendingPathComponent("truncated.gguf")
        try good.prefix(good.count / 2).write(to: truncated)
        cases.append(("half the file", truncated, .modelCorrupted))
        let text = folder.appendingPathComponent("notes.gguf")
        try Data("not a model".utf8).write(to: text)
        cases.append(("a text file", text, .invalidModelFormat))
        try await withSDK(models: []) { sdk in
            for (index, item) in cases.enumerated() {
                let id = "bad-encoder-\(index)"
                try sdk.registerModel(
                    ModelInfo(
                        id: id,
                        name: item.name,
                        category: .speakerEmbedding,
                        format: .gguf,
                        framework: Resemblyzer.framework,
                        localPath: item.file
                    )
                )
                let error = await #expect(throws: SDKException.self) { try await sdk.loadDiarizationModel(id) }
                #expect(error?.code == item.code, "\(item.name): \(String(describing: error))")
                #expect(await sdk.currentDiarizationModel == nil)
            }
        }
    }
}
