import Foundation

/// Options a backend receives when loading an LLM.
public struct LLMLoadConfiguration: Sendable, Equatable {
    /// Context size in tokens; `nil` lets the backend pick (the model's training
    /// length, capped by ``defaultContextCap``).
    public var contextLength: Int?
    /// Threads for decoding; `nil` uses all cores.
    public var threads: Int?

    /// Cap on the automatic context size, to keep KV-cache memory modest.
    public static let defaultContextCap = 4096

    /// Creates a configuration; the defaults let the backend decide.
    public init(contextLength: Int? = nil, threads: Int? = nil) {
        self.contextLength = contextLength
        self.threads = threads
    }
}
