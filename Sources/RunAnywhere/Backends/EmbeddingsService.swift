#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A text-embedding model loaded by a backend.
///
/// The backend does the engine work only: tokenizing, and turning token windows that fit
/// the model into pooled vectors. The embeddings capability above it splits long texts
/// into windows, pools them, normalizes, times the work and publishes events, so the
/// llama.cpp backend and the deterministic one behave alike.
@_spi(Backend) public protocol EmbeddingsService: Sendable {
    /// The model this service runs.
    var model: ModelInfo { get }
    /// Length of every vector.
    var dimension: Int { get }
    /// Content tokens one window may hold: the model's context minus the special tokens
    /// the service adds around each window.
    var maxTokensPerWindow: Int { get }

    /// The content tokens of `text`, without special tokens.
    func tokenize(_ text: String) async throws -> [Int32]

    /// One pooled, unnormalized vector per window. Each window holds at most
    /// ``maxTokensPerWindow`` content tokens; the service adds the model's special tokens
    /// and may evaluate several windows in one engine call.
    func embed(windows: [[Int32]]) async throws -> [[Float]]

    /// True for a reranking model (a cross-encoder): each window is a query and a passage
    /// joined by ``pairSeparator``, and its "vector" is the model's relevance scores
    /// (``dimension`` of them, usually one).
    var isReranker: Bool { get }

    /// Tokens that join a query and a passage into one window (e.g. BERT's `[SEP]`).
    var pairSeparator: [Int32] { get }

    /// Frees the engine's resources. The service is unusable afterwards.
    func unload() async

    /// For a backend that embeds whole texts (a remote server): the vectors, or `nil` to
    /// let the capability tokenize and window the texts (``tokenize(_:)``, ``embed(windows:)``).
    func embedWholeTexts(_ texts: [String]) async throws -> WholeTextEmbeddings?
}

/// Vectors a backend made from whole texts (a remote server), bypassing the capability's
/// tokenizing and windowing.
@_spi(Backend) public struct WholeTextEmbeddings: Sendable {
    /// One unnormalized vector per text, in order.
    public var vectors: [[Float]]
    /// Tokens per text where the backend reports them; otherwise an estimate.
    public var tokenCounts: [Int]
    /// Where the vectors were made.
    public var executedOn: ExecutionTarget

    /// Creates a result.
    public init(vectors: [[Float]], tokenCounts: [Int], executedOn: ExecutionTarget) {
        self.vectors = vectors
        self.tokenCounts = tokenCounts
        self.executedOn = executedOn
    }
}

@_spi(Backend) extension EmbeddingsService {
    /// `nil`: the capability tokenizes and windows the texts itself.
    public func embedWholeTexts(_ texts: [String]) async throws -> WholeTextEmbeddings? { nil }

    /// Embedding models are not rerankers.
    public var isReranker: Bool { false }

    /// Nothing joins pairs for an embedding model.
    public var pairSeparator: [Int32] { [] }
}

/// Creates a loaded ``EmbeddingsService`` for a model.
@_spi(Backend) public typealias EmbeddingsServiceFactory =
    @Sendable (ModelInfo, EmbeddingsLoadConfiguration) async throws -> any EmbeddingsService
