import Foundation
import Testing

@_spi(Backend) @testable import RunAnywhere
@testable import RunAnywhereResemblyzer

extension RealEngineTests {
    @Suite("Speaker diarization")
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
    }
}
