import Foundation
@_spi(Backend) import RunAnywhere
import RunAnywhereGBNF

/// A language model without weights: its reply is a pure function of the prompt, the
/// sampling parameters and the seed.
///
/// Tokens are words (and punctuation) drawn from a small vocabulary by a generator seeded
/// with a hash of the formatted prompt, the temperature and the seed; at temperature 0
/// the seed plays no part, as with greedy decoding. After a few words a reply may end on
/// its own (end of sequence). Everything the LLM capability relies on holds: `maxTokens`,
/// the `.stop` disposition (stop sequences), cancellation before every token, prompt and
/// generated token counts, context limits, and the simulated timing of
/// ``DeterministicBackend/Timing``.
///
/// A grammar (`request.grammar`, GBNF) is honoured: the reply is then a text of the
/// grammar drawn by ``GBNFGenerator`` from the same seed, streamed in the tokenizer's
/// tokens (each with the whitespace before it), and ends as soon as the text is whole,
/// even with `ignoreEndOfSequence`, as a constrained model does. The walk aims at about
/// `maxTokens` characters, so the text usually fits; a longer one is cut at `maxTokens`
/// (`.maxTokens`). A lazy grammar (trigger words) behaves like a model that decides to use
/// it at once: the reply is a text of the grammar from the first token, with no prose
/// before it, so under a tool-calling grammar the model calls a tool, unless the turn
/// answers a tool result (the last turn before the reply is a tool message): then it
/// replies in words, so a tool loop ends after one round of calls. A grammar that
/// llama.cpp would refuse is refused with `.invalidGrammar` before any token.
///
/// Loaded as a vision-language model it takes images, like a fixed-size projector: each
/// image becomes ``imageTokensPerImage`` prompt tokens, and its pixels (or encoded bytes)
/// join the prompt in the reply's seed, so two images give two replies. It decodes nothing:
/// the SDK has checked every image's structure before it arrives.
actor DeterministicLLMService: LLMService {
    nonisolated let model: ModelInfo
    nonisolated let contextLength: Int
    nonisolated let imageMarker: String?
    private let timing: DeterministicBackend.Timing

    /// The default context when the load configuration names none.
    static let defaultContextLength = 2_048
    /// The prompt tokens one image becomes on the vision-language model.
    static let imageTokensPerImage = 16

    init(
        model: ModelInfo,
        configuration: LLMLoadConfiguration,
        timing: DeterministicBackend.Timing,
        takesImages: Bool = false
    ) {
        self.model = model
        self.contextLength = configuration.contextLength ?? Self.defaultContextLength
        self.timing = timing
        self.imageMarker = takesImages ? "<image>" : nil
    }

    nonisolated func formatChat(_ messages: [ChatMessage], addAssistantTurn: Bool) async throws -> String {
        var text = messages.map { "<|\($0.role.rawValue)|>\n\($0.content)\n" }.joined()
        if addAssistantTurn { text += "<|assistant|>\n" }
        return text
    }

    /// Whether the conversation's last turn before the reply is a tool's result.
    static func answersToolResult(_ prompt: String) -> Bool {
        guard let tool = prompt.range(of: "<|tool|>", options: .backwards) else { return false }
        guard let user = prompt.range(of: "<|user|>", options: .backwards) else { return true }
        return tool.lowerBound > user.lowerBound
    }

    nonisolated func tokenCount(_ text: String) async throws -> Int {
        Self.tokens(of: text).count
    }

    func generate(
        _ request: LLMServiceRequest,
        onToken: @escaping @Sendable ([UInt8]) -> TokenDisposition
    ) async throws -> LLMServiceResult {
        var random = SeededGenerator(seed: Self.seed(for: request))
        // A grammar's reply is drawn whole up front, then streamed like words.
        var constrained: (pieces: [String], isComplete: Bool)?
        if let grammar = request.grammar, !(grammar.isLazy && Self.answersToolResult(request.prompt)) {
            let generator: GBNFGenerator
            do {
                generator = try GBNFGenerator(GBNFGrammar(parsing: grammar.gbnf, root: grammar.root))
            } catch {
                throw SDKException(.invalidGrammar, error.message)
            }
            let sample = generator.generate(budget: Self.grammarBudget(maxTokens: request.maxTokens), using: &random)
            constrained = (Self.pieces(of: sample.text), sample.isComplete)
        }
        var promptTokens = Self.tokens(of: request.prompt).count
        let imageTokens = request.images.count * Self.imageTokensPerImage
        if let imageMarker, !request.images.isEmpty {
            let markers = request.prompt.components(separatedBy: imageMarker).count - 1
            guard markers == request.images.count else {
                throw SDKException(
                    .invalidInput,
                    "The prompt's image markers do not match its \(request.images.count) image(s)"
                )
            }
            promptTokens += imageTokens - markers * Self.tokens(of: imageMarker).count
        }
        var truncated = 0
        if promptTokens >= contextLength {
            guard request.truncatePromptToFit else {
                throw SDKException(
                    .contextLengthExceeded,
                    "The prompt has \(promptTokens) tokens but the context holds \(contextLength)",
                    recovery:
                        "Shorten the prompt, load the model with a larger contextLength, or set truncatePromptToFit"
                )
            }
            let keep = max(1, contextLength - min(request.maxTokens, contextLength / 2))
            truncated = promptTokens - keep
            promptTokens = keep
        }
        var generated = 0
        var wordsInSentence = 0
        func result(_ reason: LLMServiceResult.StopReason) -> LLMServiceResult {
            LLMServiceResult(
                promptTokens: promptTokens,
                generatedTokens: generated,
                stopReason: reason,
                truncatedPromptTokens: truncated,
                imageTokens: imageTokens
            )
        }
        do {
            try await timing.waitForFirstToken()
            while true {
                if request.cancellation.isCancelled || Task.isCancelled { return result(.cancelled) }
                if generated > 0 { try await timing.waitForNextToken() }
                if request.cancellation.isCancelled || Task.isCancelled { return result(.cancelled) }
                if let constrained {
                    // Whole, the text ends the reply; cut at the walk's limit, it ran out of room.
                    guard generated < constrained.pieces.count else {
                        return result(constrained.isComplete ? .endOfSequence : .maxTokens)
                    }
                    generated += 1
                    if onToken(Array(constrained.pieces[generated - 1].utf8)) == .stop { return result(.callback) }
                    if generated == constrained.pieces.count {
                        return result(constrained.isComplete ? .endOfSequence : .maxTokens)
                    }
                    if generated >= request.maxTokens { return result(.maxTokens) }
                    if promptTokens + generated >= contextLength { return result(.contextFull) }
                    continue
                }
                // A reply of at least four words may end after any sentence.
                if !request.ignoreEndOfSequence, generated >= 4, wordsInSentence == 0, random.next() % 3 == 0 {
                    return result(.endOfSequence)
                }
                let piece: String
                if wordsInSentence >= 5, random.next() % 4 == 0 {
                    piece = "."
                    wordsInSentence = 0
                } else {
                    let word = Self.vocabulary[Int(random.next() % UInt64(Self.vocabulary.count))]
                    piece = (generated == 0 ? "" : " ") + (wordsInSentence == 0 ? word.capitalized : word)
                    wordsInSentence += 1
                }
                generated += 1
                if onToken(Array(piece.utf8)) == .stop { return result(.callback) }
                if generated >= request.maxTokens { return result(.maxTokens) }
                if promptTokens + generated >= contextLength { return result(.contextFull) }
            }
        } catch is CancellationError {
            return result(.cancelled)
        }
    }

    nonisolated func unload() async {}

    /// Words and single punctuation marks: the deterministic model's tokenizer.
    static func tokens(of text: String) -> [Substring] {
        var tokens: [Substring] = []
        var start: String.Index?
        for index in text.indices {
            let character = text[index]
            if character.isLetter || character.isNumber {
                if start == nil { start = index }
                continue
            }
            if let wordStart = start {
                tokens.append(text[wordStart..<index])
                start = nil
            }
            if !character.isWhitespace { tokens.append(text[index...index]) }
        }
        if let start { tokens.append(text[start...]) }
        return tokens
    }

    /// The text split into tokens, each with the whitespace before it (the last also with
    /// the whitespace after it), so the pieces join back into the text.
    static func pieces(of text: String) -> [String] {
        let words = Self.tokens(of: text)
        guard !words.isEmpty else { return text.isEmpty ? [] : [text] }
        var pieces: [String] = []
        var start = text.startIndex
        for token in words.dropLast() {
            pieces.append(String(text[start..<token.endIndex]))
            start = token.endIndex
        }
        pieces.append(String(text[start...]))
        return pieces
    }

    /// How long a grammar's text should be, in characters: about what fits `maxTokens`, as
    /// punctuation-heavy texts such as JSON take near a token a character.
    static func grammarBudget(maxTokens: Int) -> Int {
        min(max(maxTokens, 16), 4_096)
    }

    /// FNV-1a over everything the reply depends on; stable across runs and machines,
    /// unlike `Hasher`, which is seeded per process.
    private static func seed(for request: LLMServiceRequest) -> UInt64 {
        let sampling = request.sampling
        let random = sampling.temperature > 0
        let key = [
            request.prompt,
            random ? "\(sampling.temperature)/\(sampling.topP)/\(sampling.topK)/\(sampling.seed ?? 0)" : "greedy",
            "\(sampling.repetitionPenalty)",
        ].joined(separator: "\u{1F}")
        let text = fnv1a(key.utf8)
        return request.images.reduce(text) { seed, image in
            switch image.source {
            case .encoded(let data): fnv1a(data, from: seed)
            case .rgb(let pixels, let width, let height): fnv1a(pixels, from: seed ^ UInt64(width << 20 | height))
            case .file(let url): fnv1a(url.path.utf8, from: seed)
            }
        }
    }

    private static func fnv1a(_ bytes: some Sequence<UInt8>, from seed: UInt64 = 0xCBF2_9CE4_8422_2325) -> UInt64 {
        bytes.reduce(seed) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }

    static let vocabulary = [
        "the", "light", "is", "on", "kitchen", "timer", "set", "for", "ten", "minutes", "sky", "blue", "because",
        "air", "scatters", "short", "waves", "more", "than", "long", "ones", "rain", "falls", "softly", "over",
        "quiet", "hills", "and", "a", "small", "river", "runs", "to", "the", "sea", "today", "weather", "will",
        "be", "warm", "with", "clouds", "later", "music", "plays", "in", "room", "door", "opens", "morning",
    ]
}

/// The deterministic backend's random numbers: the SDK's seeded SplitMix64.
typealias SeededGenerator = SplitMix
