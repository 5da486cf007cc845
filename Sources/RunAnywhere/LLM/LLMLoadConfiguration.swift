#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Options a backend receives when loading an LLM.
public struct LLMLoadConfiguration: Sendable, Equatable {
    /// Context size in tokens of each generation (each slot); `nil` lets the backend pick
    /// (the model's training length, capped by ``defaultContextCap``).
    public var contextLength: Int?
    /// Threads for decoding; `nil` uses all cores.
    public var threads: Int?
    /// Generations the engine decodes together in one batch, each with its own
    /// `contextLength` of cache. Beyond this many, generations wait for a free slot.
    /// One slot keeps the engine exactly as fast for a single caller; a server takes more.
    public var slots: Int
    /// A chat template (Jinja text) to use instead of the one the model carries: for a model
    /// whose file has none (a base model such as Gemma 3 270M), or a better one. `nil` uses the
    /// model's own. It applies when the model loads: loading the loaded model again keeps the
    /// template it has (unload it first).
    public var chatTemplate: String?

    /// Cap on the automatic context size, to keep KV-cache memory modest.
    public static let defaultContextCap = 4096

    /// Most slots one model may have.
    public static let maximumSlots = 64

    /// Creates a configuration; the defaults let the backend decide.
    public init(contextLength: Int? = nil, threads: Int? = nil, slots: Int = 1, chatTemplate: String? = nil) {
        self.contextLength = contextLength
        self.threads = threads
        self.slots = slots
        self.chatTemplate = chatTemplate
    }

    /// The context each slot gets for a model trained on `trained` tokens: ``contextLength``,
    /// else the training length capped by ``defaultContextCap``.
    public func resolvedContextLength(trained: Int?) -> Int {
        if let contextLength { return contextLength }
        guard let trained, trained > 0 else { return Self.defaultContextCap }
        return min(trained, Self.defaultContextCap)
    }

    /// Checks the values before anything is loaded.
    ///
    /// - Throws: `.invalidInput` for a context under 16 tokens, threads under 1, slots
    ///   outside 1…``maximumSlots``, or an empty chat template.
    public func validate() throws(SDKException) {
        if let contextLength, contextLength < 16 {
            throw SDKException(.invalidInput, "contextLength must be at least 16 (got \(contextLength))")
        }
        if let threads, threads < 1 {
            throw SDKException(.invalidInput, "threads must be at least 1 (got \(threads))")
        }
        guard (1...Self.maximumSlots).contains(slots) else {
            throw SDKException(.invalidInput, "slots must be between 1 and \(Self.maximumSlots) (got \(slots))")
        }
        if let chatTemplate, chatTemplate.allSatisfy(\.isWhitespace) {
            throw SDKException(.invalidInput, "chatTemplate is empty: pass nil to use the model's own")
        }
    }
}
