import Foundation

/// A language model loaded by a backend, ready to generate.
///
/// Backends implement this (usually as an actor holding the engine's handles). The LLM
/// capability above it owns everything that is not engine work: prompt formatting
/// choices, stop sequences, thinking extraction, metrics, events and streaming. Errors
/// a backend throws should be ``SDKException``s; anything else is wrapped.
public protocol LLMService: Sendable {
    /// The model this service runs.
    var model: ModelInfo { get }
    /// Tokens the loaded context can hold (prompt plus generation).
    var contextLength: Int { get }

    /// Renders a conversation with the model's own chat template, ending with the
    /// assistant's turn opened when `addAssistantTurn` is true.
    func formatChat(_ messages: [ChatMessage], addAssistantTurn: Bool) async throws -> String

    /// Number of tokens `text` becomes, special tokens included.
    func tokenCount(_ text: String) async throws -> Int

    /// Generates from an already formatted prompt, handing each sampled token's bytes
    /// to `onToken` on the generating thread; returning `.stop` ends generation after
    /// that token. Generation also ends when `request.cancellation` is set (checked
    /// before every token), at end of sequence, at `maxTokens`, or when the context is
    /// full.
    func generate(_ request: LLMServiceRequest,
                  onToken: @escaping @Sendable (_ piece: [UInt8]) -> TokenDisposition) async throws -> LLMServiceResult

    /// Frees the engine's resources. The service is unusable afterwards.
    func unload() async
}

/// What `onToken` tells the generator.
public enum TokenDisposition: Sendable {
    case `continue`, stop
}

/// The engine-level request the LLM capability sends to a backend.
public struct LLMServiceRequest: Sendable {
    public var prompt: String
    public var maxTokens: Int
    public var sampling: SamplingParameters
    public var threads: Int?
    /// Drop the oldest prompt tokens when the prompt does not fit, instead of failing.
    public var truncatePromptToFit: Bool
    /// Keep generating past end-of-sequence tokens (benchmarks).
    public var ignoreEndOfSequence: Bool
    /// Keep the cached state of a common prompt prefix from the previous generation.
    public var reusePrefix: Bool
    /// Set from any thread to stop after the current token.
    public var cancellation: CancellationFlag

    public init(prompt: String, maxTokens: Int, sampling: SamplingParameters, threads: Int? = nil,
                truncatePromptToFit: Bool = false, ignoreEndOfSequence: Bool = false, reusePrefix: Bool = true,
                cancellation: CancellationFlag = CancellationFlag()) {
        self.prompt = prompt
        self.maxTokens = maxTokens
        self.sampling = sampling
        self.threads = threads
        self.truncatePromptToFit = truncatePromptToFit
        self.ignoreEndOfSequence = ignoreEndOfSequence
        self.reusePrefix = reusePrefix
        self.cancellation = cancellation
    }
}

/// Sampler settings. A temperature of 0 means greedy decoding.
public struct SamplingParameters: Sendable, Equatable {
    public var temperature: Float
    public var topP: Float
    public var topK: Int
    public var repetitionPenalty: Float
    public var seed: UInt32?

    public init(temperature: Float, topP: Float, topK: Int, repetitionPenalty: Float, seed: UInt32?) {
        self.temperature = temperature
        self.topP = topP
        self.topK = topK
        self.repetitionPenalty = repetitionPenalty
        self.seed = seed
    }
}

/// What the backend reports when a generation ends.
public struct LLMServiceResult: Sendable, Equatable {
    /// Tokens of the prompt that were evaluated (after any truncation).
    public var promptTokens: Int
    /// Tokens sampled and handed to `onToken` (end-of-sequence not counted).
    public var generatedTokens: Int
    /// Why generation ended.
    public var stopReason: StopReason
    /// Prompt tokens dropped to fit the context.
    public var truncatedPromptTokens: Int

    public enum StopReason: Sendable, Equatable {
        case endOfSequence, maxTokens, contextFull, cancelled, callback
    }

    public init(promptTokens: Int, generatedTokens: Int, stopReason: StopReason, truncatedPromptTokens: Int = 0) {
        self.promptTokens = promptTokens
        self.generatedTokens = generatedTokens
        self.stopReason = stopReason
        self.truncatedPromptTokens = truncatedPromptTokens
    }
}

/// Options a backend receives when loading an LLM.
public struct LLMLoadConfiguration: Sendable, Equatable {
    /// Context size in tokens; `nil` lets the backend pick (the model's training
    /// length, capped by ``defaultContextCap``).
    public var contextLength: Int?
    /// Threads for decoding; `nil` uses all cores.
    public var threads: Int?

    /// Cap on the automatic context size, to keep KV-cache memory modest.
    public static let defaultContextCap = 4096

    public init(contextLength: Int? = nil, threads: Int? = nil) {
        self.contextLength = contextLength
        self.threads = threads
    }
}
