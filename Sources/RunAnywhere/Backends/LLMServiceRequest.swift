#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The engine-level request the LLM capability sends to a backend.
@_spi(Backend) public struct LLMServiceRequest: Sendable {
    /// The prompt, already formatted (chat template applied where wanted).
    public var prompt: String
    /// Most tokens to generate.
    public var maxTokens: Int
    /// How to pick each token.
    public var sampling: SamplingParameters
    /// Decoding threads; `nil` keeps the setting the model was loaded with.
    public var threads: Int?
    /// Threads that evaluate the prompt; `nil` uses ``threads``.
    public var promptThreads: Int?
    /// Drop the oldest prompt tokens when the prompt does not fit, instead of failing.
    public var truncatePromptToFit: Bool
    /// Keep generating past end-of-sequence tokens (benchmarks).
    public var ignoreEndOfSequence: Bool
    /// Keep the cached state of a common prompt prefix from the previous generation.
    public var reusePrefix: Bool
    /// Set from any thread to stop after the current token.
    public var cancellation: CancellationFlag

    /// A grammar every sampled token must follow; `nil` for free text. A backend that
    /// cannot apply it must fail, never generate unconstrained. End of generation ends a
    /// constrained generation even with ``ignoreEndOfSequence``.
    public var grammar: LLMGrammar?

    /// The LoRA adapters this request uses, all loaded (``LLMService/loadLoRAAdapter(id:file:)``);
    /// `nil` uses the service's default set.
    public var loraAdapters: [LoRAAdapterSelection]?

    /// The images the prompt's markers (``LLMService/imageMarker``) stand for, in order:
    /// checked (``VLMImage/Source/encoded(_:)`` PNG or JPEG bytes whose structure is whole,
    /// or raw RGB pixels), within ``VLMImage/maximumPixelCount``. Empty for text alone.
    public var images: [VLMImage]

    /// The conversation before any chat template, for a backend that takes turns rather than
    /// text (a remote chat-completions server); `nil` when the caller asked for the raw prompt.
    public var messages: [ChatMessage]?

    /// For structured output, the JSON Schema ``grammar`` was compiled from: a backend that
    /// cannot apply the grammar but can constrain to a schema (a remote server's
    /// `response_format`) uses this instead.
    public var responseSchema: JSONSchema?

    /// Tools a backend that calls them natively (a remote server's `tools`) may call, with
    /// ``toolChoice``; calls come back in ``LLMServiceResult/toolCalls``. Local engines never
    /// get these: the tool-calling loop writes tools into the prompt for them.
    public var tools: [ToolDefinition]

    /// Whether and which of ``tools`` must be called.
    public var toolChoice: ToolChoice?
    /// Special tokens whose text the output keeps (a model's own call syntax, e.g. Mistral's
    /// `[TOOL_CALLS]` or Llama 3.1's `<|python_tag|>`): other special tokens add no text.
    public var preservedTokens: [String] = []

    /// Creates a request.
    public init(
        prompt: String,
        maxTokens: Int,
        sampling: SamplingParameters,
        threads: Int? = nil,
        promptThreads: Int? = nil,
        truncatePromptToFit: Bool = false,
        ignoreEndOfSequence: Bool = false,
        reusePrefix: Bool = true,
        cancellation: CancellationFlag = CancellationFlag(),
        grammar: LLMGrammar? = nil,
        loraAdapters: [LoRAAdapterSelection]? = nil,
        images: [VLMImage] = [],
        messages: [ChatMessage]? = nil,
        responseSchema: JSONSchema? = nil,
        tools: [ToolDefinition] = [],
        toolChoice: ToolChoice? = nil
    ) {
        self.prompt = prompt
        self.maxTokens = maxTokens
        self.sampling = sampling
        self.threads = threads
        self.promptThreads = promptThreads
        self.truncatePromptToFit = truncatePromptToFit
        self.ignoreEndOfSequence = ignoreEndOfSequence
        self.reusePrefix = reusePrefix
        self.cancellation = cancellation
        self.grammar = grammar
        self.loraAdapters = loraAdapters
        self.images = images
        self.messages = messages
        self.responseSchema = responseSchema
        self.tools = tools
        self.toolChoice = toolChoice
    }
}

/// Sampler settings. A temperature of 0 means greedy decoding.
@_spi(Backend) public struct SamplingParameters: Sendable, Equatable {
    /// Randomness; 0 is greedy.
    public var temperature: Float
    /// Nucleus sampling threshold in (0, 1]; 1 disables.
    public var topP: Float
    /// Keep only the `topK` most likely tokens; 0 disables.
    public var topK: Int
    /// Penalty for repeating recent tokens; 1 disables.
    public var repetitionPenalty: Float
    /// Seed for sampling; `nil` picks one at random.
    public var seed: UInt32?

    /// Creates sampler settings.
    public init(temperature: Float, topP: Float, topK: Int, repetitionPenalty: Float, seed: UInt32?) {
        self.temperature = temperature
        self.topP = topP
        self.topK = topK
        self.repetitionPenalty = repetitionPenalty
        self.seed = seed
    }
}
