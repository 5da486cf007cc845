#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Options a backend receives when loading an embedding model.
public struct EmbeddingsLoadConfiguration: Sendable, Equatable {
    /// Threads for encoding; `nil` uses all cores.
    public var threads: Int?
    /// Token budget of one engine call; several texts share it. `nil` lets the backend pick.
    public var batchTokens: Int?

    /// Creates a configuration; the defaults let the backend decide.
    public init(threads: Int? = nil, batchTokens: Int? = nil) {
        self.threads = threads
        self.batchTokens = batchTokens
    }
}
