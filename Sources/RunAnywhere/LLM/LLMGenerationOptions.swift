/// How to generate text.
///
/// ```swift
/// let options = LLMGenerationOptions(maxTokens: 64, temperature: 0, stopSequences: ["\n\n"])
/// let result = try await RunAnywhere.generate("Name three colours.", options: options)
/// ```
public struct LLMGenerationOptions: Sendable, Codable, Equatable {
    /// Most tokens to generate.
    public var maxTokens: Int
    /// Randomness; 0 is greedy and deterministic.
    public var temperature: Float
    /// Nucleus sampling threshold in (0, 1].
    public var topP: Float
    /// Keep only the `topK` most likely tokens; 0 disables.
    public var topK: Int
    /// Penalty for repeating recent tokens; 1 disables.
    public var repetitionPenalty: Float
    /// Seed for sampling; `nil` picks one at random.
    public var seed: UInt32?
    /// Generation stops before any of these strings; they are not part of the result.
    public var stopSequences: [String]
    /// A system message placed before the prompt.
    public var systemPrompt: String?
    /// Decoding threads; `nil` keeps the model's setting.
    public var threads: Int?
    /// Threads that evaluate the prompt; `nil` uses ``threads``. A prompt is evaluated
    /// before the reply's first token, often while nothing else runs yet (a voice agent's
    /// speech synthesis only starts once the first sentence is out), so it can take more
    /// cores than the token-by-token generation that overlaps other work. Give it only cores
    /// that are free: llama.cpp's threads wait for each other at every step, so one that
    /// shares its core with another busy process slows them all.
    public var promptThreads: Int?
    /// Format the prompt with the model's chat template (as a user turn). Turn off to send
    /// the prompt to the model verbatim.
    public var applyChatTemplate: Bool
    /// Drop the oldest prompt tokens when the prompt does not fit the context, instead of
    /// failing with `.contextLengthExceeded`.
    public var truncatePromptToFit: Bool
    /// Keep generating past end-of-sequence tokens until `maxTokens` (for benchmarks).
    public var ignoreEndOfSequence: Bool
    /// Reuse the engine's cache of the previous prompt where the new one starts the same
    /// way (a conversation's system prompt and history), so only the new part is
    /// evaluated. Off, every prompt is evaluated from scratch (for benchmarks).
    public var reusePromptCache: Bool
    /// A grammar the output must follow; `nil` leaves the output free.
    public var grammar: LLMGrammar?
    /// LoRA adapters for this generation alone, in place of the ones applied to the model
    /// (``LoRA/apply(_:scale:)``); `[]` for none, `nil` for the applied ones. Switching
    /// adapters between requests needs no reload of the model.
    public var loraAdapters: [LoRAAdapterSelection]?
    /// Whether a model that can reason first does so; `nil` (the default) leaves it to the
    /// model's template. Its reasoning never mixes with the answer either way.
    public var reasoning: ReasoningMode?

    /// The schema ``grammar`` was compiled from, for backends that constrain by schema.
    var responseSchema: JSONSchema?
    /// Tools for a backend that calls them natively (the remote tool-calling loop).
    var nativeTools: [ToolDefinition] = []
    /// The tool choice that goes with ``nativeTools``.
    var nativeToolChoice: ToolChoice?
    /// Runs the request on this side of a routed model only (the remote tool-calling loop).
    var pinnedTarget: ExecutionTarget?
    /// Special tokens the output keeps as text (the model's own call syntax).
    var preservedTokens: [String] = []

    /// The public settings only; the internal routing fields are per call.
    private enum CodingKeys: String, CodingKey {
        case maxTokens, temperature, topP, topK, repetitionPenalty, seed, stopSequences, systemPrompt, threads,
            promptThreads, applyChatTemplate, truncatePromptToFit, ignoreEndOfSequence, reusePromptCache, grammar,
            loraAdapters, reasoning
    }

    /// Creates options. The sampling defaults are the original SDK's (100 tokens, temperature
    /// 0.8, top-p 1, no top-k, no repetition penalty), so an app ported from it generates as it
    /// did; the CLI and the servers choose their own (`runanywhere generate --help`).
    public init(
        maxTokens: Int = 100,
        temperature: Float = 0.8,
        topP: Float = 1.0,
        topK: Int = 0,
        repetitionPenalty: Float = 1.0,
        seed: UInt32? = nil,
        stopSequences: [String] = [],
        systemPrompt: String? = nil,
        threads: Int? = nil,
        promptThreads: Int? = nil,
        applyChatTemplate: Bool = true,
        truncatePromptToFit: Bool = false,
        ignoreEndOfSequence: Bool = false,
        reusePromptCache: Bool = true,
        grammar: LLMGrammar? = nil,
        loraAdapters: [LoRAAdapterSelection]? = nil,
        reasoning: ReasoningMode? = nil
    ) {
        self.maxTokens = maxTokens
        self.temperature = temperature
        self.topP = topP
        self.topK = topK
        self.repetitionPenalty = repetitionPenalty
        self.seed = seed
        self.stopSequences = stopSequences
        self.systemPrompt = systemPrompt
        self.threads = threads
        self.promptThreads = promptThreads
        self.applyChatTemplate = applyChatTemplate
        self.truncatePromptToFit = truncatePromptToFit
        self.ignoreEndOfSequence = ignoreEndOfSequence
        self.reusePromptCache = reusePromptCache
        self.grammar = grammar
        self.loraAdapters = loraAdapters
        self.reasoning = reasoning
    }

    /// Checks every field's range; throws `.invalidInput` naming the first bad one.
    public func validate() throws(SDKException) {
        func bad(_ what: String) -> SDKException { SDKException(.invalidInput, "Invalid generation option: \(what)") }
        guard (1...1_000_000).contains(maxTokens) else { throw bad("maxTokens must be at least 1 (got \(maxTokens))") }
        guard temperature.isFinite, (0...10).contains(temperature) else {
            throw bad("temperature must be in 0…10 (got \(temperature))")
        }
        guard topP.isFinite, topP > 0, topP <= 1 else { throw bad("topP must be in (0, 1] (got \(topP))") }
        guard topK >= 0 else { throw bad("topK must not be negative (got \(topK))") }
        guard repetitionPenalty.isFinite, repetitionPenalty > 0 else {
            throw bad("repetitionPenalty must be positive (got \(repetitionPenalty))")
        }
        for (name, count) in [("threads", threads), ("promptThreads", promptThreads)] {
            if let count, !(1...512).contains(count) { throw bad("\(name) must be in 1…512 (got \(count))") }
        }
        guard !stopSequences.contains(where: \.isEmpty) else { throw bad("stop sequences must not be empty strings") }
        try grammar?.validate()
        if let loraAdapters { try LoRAAdapterSelection.validate(loraAdapters) }
    }

    var sampling: SamplingParameters {
        SamplingParameters(
            temperature: temperature,
            topP: topP,
            topK: topK,
            repetitionPenalty: repetitionPenalty,
            seed: seed
        )
    }
}
