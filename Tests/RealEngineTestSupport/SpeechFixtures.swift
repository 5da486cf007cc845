import Foundation

@_spi(Backend) @testable import RunAnywhere

/// Words of a transcript, normalized as the word error rate counts them.
package func words(_ text: String) -> [String] {
    WordErrorRate.words(text)
}

/// The first and last moments (seconds) where 10 ms windows rise above −40 dBFS.
package func audibleSpan(_ audio: PCMAudio) -> (start: Double, end: Double) {
    let windows = audio.chunks(duration: 0.01)
    let loud = windows.indices.filter { windows[$0].rmsDecibels > -40 }
    return (Double(loud.first ?? 0) * 0.01, Double((loud.last ?? 0) + 1) * 0.01)
}

/// The real-speech set read for wake-word tests: the recordings that say ``phrase`` (ten,
/// from a telephone system's prompts at 8 kHz), and a spread of the others from every speaker.
package enum WakeWordRecordings {
    /// A phrase real people say in the set, at the end of each recording that has it.
    package static let phrase = "please try again"

    /// The recordings that say ``phrase``, and every other non-telephone recording with
    /// every eighth telephone prompt.
    package static func load() throws -> (saying: [PCMAudio], others: [(id: String, audio: PCMAudio)]) {
        let corpus = try SpeechCorpus.bootstrapped()
        let words = WordErrorRate.words(phrase)
        func says(_ text: String) -> Bool {
            WakeWordConfiguration.contains(WordErrorRate.words(text), phrase: words)
        }
        let saying = try corpus.clips.filter { says($0.transcript) }.map { try WAVFile.read(contentsOf: $0.file) }
        let others = try corpus.clips.filter { !says($0.transcript) }.enumerated()
            .filter { $0.element.speaker != "asterisk-allison" || $0.offset % 8 == 0 }
            .map { (id: $0.element.id, audio: try WAVFile.read(contentsOf: $0.element.file)) }
        return (saying, others)
    }
}
