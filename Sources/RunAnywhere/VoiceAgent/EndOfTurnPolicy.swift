#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How long the voice agent waits in silence before it decides the user has finished.
///
/// A fixed wait is either too long after a finished question (the user hears the whole wait
/// before any answer) or too short after "and…" (the agent cuts in while the user is only
/// pausing). The policy reads the transcript of what was said so far, which the speculative
/// turn produces while the silence is still short:
/// - after a complete sentence or question it waits ``afterCompleteSentence``;
/// - after a trailing conjunction, filler or comma it waits ``afterIncompleteSentence``;
/// - while no transcript is ready yet, until one is (at most ``afterIncompleteSentence``);
/// - otherwise (no punctuation to go on) the VAD's own ``VADConfiguration/minSilenceDuration``.
///
/// ```swift
/// var configuration = VoiceAgentConfiguration(sttModelId: "whisper-tiny-en", llmModelId: "smollm2-135m-instruct")
/// configuration.endOfTurn = EndOfTurnPolicy(afterCompleteSentence: 0.25, afterIncompleteSentence: 1.5)
/// ```
public struct EndOfTurnPolicy: Sendable, Codable, Equatable {
    /// Whether the wait depends on the transcript; when `false`, every turn waits the VAD's
    /// ``VADConfiguration/minSilenceDuration``.
    public var adaptive: Bool
    /// The silence that ends a turn whose transcript is a complete sentence or question, in seconds.
    public var afterCompleteSentence: TimeInterval
    /// The silence that ends a turn whose transcript trails off ("and", "um", a comma), in seconds.
    public var afterIncompleteSentence: TimeInterval
    /// Words after which the user is taken to be pausing, not finished (lowercase).
    public var continuationWords: Set<String>

    /// Conjunctions, fillers, articles, prepositions and possessives: words an English
    /// sentence does not end on, unless it is a question ("Who did you talk to?"), which the
    /// question mark settles first.
    public static let englishContinuationWords: Set<String> = [
        "and", "but", "or", "so", "because", "if", "then", "um", "uh", "er", "erm", "hmm", "the", "a", "an", "my",
        "your", "our", "their", "his", "her", "its", "of", "to", "with", "for", "from", "in", "on", "at", "by",
        "into", "than", "as", "very", "some",
    ]

    /// Creates a policy; the defaults answer 0.3 s after a finished sentence and wait a full
    /// second after one that trails off.
    public init(
        adaptive: Bool = true,
        afterCompleteSentence: TimeInterval = 0.3,
        afterIncompleteSentence: TimeInterval = 1.0,
        continuationWords: Set<String> = englishContinuationWords
    ) {
        self.adaptive = adaptive
        self.afterCompleteSentence = afterCompleteSentence
        self.afterIncompleteSentence = afterIncompleteSentence
        self.continuationWords = continuationWords
    }

    /// What the transcript says about the user's turn.
    public enum Ending: String, Sendable, Codable {
        /// A finished sentence or question.
        case complete
        /// A sentence that trails off: a conjunction, a filler, a comma or an ellipsis at the end.
        case incomplete
        /// Nothing to go on: no transcript yet, or no punctuation.
        case unknown
    }

    /// Classifies the end of a transcript.
    public func ending(of transcript: String?) -> Ending {
        guard let transcript else { return .unknown }
        let text = transcript.trimmed()
        guard let last = text.last else { return .unknown }
        if last == "?" { return .complete }
        if text.hasSuffix("...") || last == "…" || ",;:-–—".contains(last) { return .incomplete }
        // Whisper often closes a sentence that trails off with a full stop ("I went out and.").
        let lastWord = text.split(whereSeparator: { !$0.isLetter && $0 != "'" }).last.map { $0.lowercased() }
        if let lastWord, continuationWords.contains(lastWord) { return .incomplete }
        return ".!".contains(last) ? .complete : .unknown
    }

    /// The silence, in seconds, that ends a turn whose transcript so far is `transcript`
    /// (`nil` while none is ready); `fallback` is the VAD's wait.
    ///
    /// While no transcript is ready the turn waits for one, up to ``afterIncompleteSentence``:
    /// the answer cannot start before the transcript anyway, so waiting costs nothing, and
    /// deciding without it would cut "and so, my fellow Americans, … ask not" at its comma.
    public func silence(after transcript: String?, fallback: TimeInterval) -> TimeInterval {
        guard adaptive else { return fallback }
        guard let transcript else { return max(fallback, afterIncompleteSentence) }
        switch ending(of: transcript) {
        case .complete: return afterCompleteSentence
        case .incomplete: return afterIncompleteSentence
        case .unknown: return fallback
        }
    }

    /// The shortest silence this policy may end a turn on.
    func shortestSilence(fallback: TimeInterval) -> TimeInterval {
        adaptive ? min(afterCompleteSentence, afterIncompleteSentence, fallback) : fallback
    }

    /// Checks the values.
    public func validate() throws(SDKException) {
        for (name, value) in [
            ("afterCompleteSentence", afterCompleteSentence), ("afterIncompleteSentence", afterIncompleteSentence),
        ] {
            guard value.isFinite, value >= 0.1, value <= 10 else {
                throw SDKException(.invalidInput, "endOfTurn.\(name) must be between 0.1 and 10 s (got \(value))")
            }
        }
    }
}
