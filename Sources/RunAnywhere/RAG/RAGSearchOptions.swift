import Foundation

/// How a search ranks and filters.
public struct RAGSearchOptions: Sendable, Equatable, Codable {
    /// How many chunks to return.
    public var topK: Int
    /// Which signal ranks them.
    public var mode: RAGSearchMode
    /// Only documents whose metadata has every one of these key/value pairs.
    public var filter: [String: String]
    /// The `k` of reciprocal rank fusion: a chunk at rank r in one list scores 1 / (k + r).
    /// Larger values flatten the difference between top ranks. 60 is the usual choice.
    public var fusionK: Double
    /// How many candidates each list contributes to fusion (at least `topK`).
    public var fusionCandidates: Int

    /// Creates options.
    public init(
        topK: Int = 5,
        mode: RAGSearchMode = .hybrid,
        filter: [String: String] = [:],
        fusionK: Double = 60,
        fusionCandidates: Int = 50
    ) {
        self.topK = topK
        self.mode = mode
        self.filter = filter
        self.fusionK = fusionK
        self.fusionCandidates = fusionCandidates
    }

    func validate() throws(SDKException) {
        guard topK >= 1, topK <= 10_000 else {
            throw SDKException(.invalidInput, "topK must be between 1 and 10000, not \(topK)")
        }
        guard fusionK >= 0, fusionK.isFinite else {
            throw SDKException(.invalidInput, "fusionK must be a finite number ≥ 0, not \(fusionK)")
        }
    }
}
