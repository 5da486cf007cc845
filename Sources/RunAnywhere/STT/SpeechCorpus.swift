#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A folder of real recordings with their transcripts, as `scripts/fetch_real_speech.py`
/// writes it: `manifest.tsv` (id, speaker, source, seconds, transcript, file) and the WAV
/// files it names. `bench stt --real` and the real-speech tests read it.
package struct SpeechCorpus: Sendable {
    package struct Clip: Sendable {
        package var id: String
        package var speaker: String
        package var source: String
        package var seconds: Double
        package var transcript: String
        package var file: URL
    }

    package var folder: URL
    package var clips: [Clip]

    /// The environment variable `scripts/env.sh` sets to the bootstrap's copy.
    package static let environmentKey = "RUNANYWHERE_SPEECH_SET"

    /// The bootstrap's copy, from ``environmentKey``.
    package static func bootstrapped() throws(SDKException) -> SpeechCorpus {
        guard let path = ProcessInfo.processInfo.environment[environmentKey], !path.isEmpty else {
            throw SDKException(
                .invalidConfiguration,
                "\(environmentKey) is not set",
                recovery: "Run `source scripts/env.sh` after `scripts/bootstrap models`"
            )
        }
        return try SpeechCorpus(folder: URL(fileURLWithPath: path))
    }

    package init(folder: URL) throws(SDKException) {
        self.folder = folder
        let manifest = folder.appendingPathComponent("manifest.tsv")
        guard let data = FileManager.default.contents(atPath: manifest.path),
            let text = String(data: data, encoding: .utf8)
        else {
            throw SDKException(
                .fileSystemError,
                "No speech set at \(folder.path) (manifest.tsv is missing)",
                recovery: "Run `scripts/bootstrap models`"
            )
        }
        var clips: [Clip] = []
        for (number, line) in text.split(separator: "\n").enumerated().dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 6, let seconds = Double(fields[3]) else {
                throw SDKException(
                    .invalidInput,
                    "manifest.tsv line \(number + 1) is not id, speaker, source, seconds, transcript, file"
                )
            }
            clips.append(
                Clip(
                    id: fields[0],
                    speaker: fields[1],
                    source: fields[2],
                    seconds: seconds,
                    transcript: fields[4],
                    file: folder.appendingPathComponent(fields[5])
                )
            )
        }
        self.clips = clips
    }

    /// Whether `text` repeats a phrase (see ``TranscriptRepetition``) that the reference
    /// does not: the decoder looped.
    package static func repeatsWords(_ text: String, reference: String) -> Bool {
        TranscriptRepetition.repeatsPhrase(text) && !TranscriptRepetition.repeatsPhrase(reference)
    }
}
