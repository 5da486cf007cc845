#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reranking: owns the loaded cross-encoder, joins a query with each passage into one
/// window, cuts passages to the window, and returns the model's relevance scores.
package actor RerankCapability {
    private let services: ServiceRegistry
    let lifecycle: ModelLifecycle<any EmbeddingsService>

    init(services: ServiceRegistry, registry: ModelRegistry, events: EventBus) {
        self.services = services
        self.lifecycle = ModelLifecycle(category: .embedding, registry: registry, events: events) { service in
            await service.unload()
        }
    }

    func load(_ id: String, configuration: EmbeddingsLoadConfiguration) async throws(SDKException) {
        let services = self.services
        try await lifecycle.load(id) { model in
            try await EmbeddingsCapability.makeService(
                for: model,
                configuration: configuration,
                services: services,
                reranker: true
            )
        }
    }

    func unload() async {
        await lifecycle.unload()
    }

    var currentModel: ModelInfo? { get async { await lifecycle.currentModel } }

    /// Scores every document against `query`, in the documents' order.
    package func rerank(_ query: String, documents: [String]) async throws(SDKException) -> RerankResult {
        guard let service = await lifecycle.currentService else {
            throw SDKException(
                .modelNotLoaded,
                "No reranking model is loaded",
                recovery: "Load one first: loadRerankModel(ID) with a GGUF cross-encoder (rank pooling)"
            )
        }
        guard !query.unicodeScalars.allSatisfy({ $0.properties.isWhitespace || $0 == "\0" }) else {
            throw SDKException(.emptyText, "The query is empty")
        }
        guard !documents.isEmpty else {
            return RerankResult(scores: [], modelId: service.model.id, truncatedDocuments: 0, durationMs: 0)
        }
        let start = ContinuousClock.now
        let separator = service.pairSeparator
        let window = service.maxTokensPerWindow
        var windows: [[Int32]] = []
        var truncated = 0
        do {
            let queryTokens = try await service.tokenize(query)
            guard !queryTokens.isEmpty else {
                throw SDKException(.emptyText, "The query has no tokens in \(service.model.id)'s vocabulary")
            }
            // The query is kept whole; passages give way. A query that leaves no room is an error.
            let room = window - queryTokens.count - separator.count
            guard room >= 1 else {
                throw SDKException(
                    .invalidInput,
                    "The query has \(queryTokens.count) tokens; \(service.model.id) reads \(window) per pair",
                    recovery: "Shorten the query"
                )
            }
            for document in documents {
                let tokens = try await service.tokenize(document)
                if tokens.count > room { truncated += 1 }
                windows.append(queryTokens + separator + tokens.prefix(room))
            }
        } catch {
            throw SDKException.wrap(error, as: .backendError, "Tokenizing for reranking failed")
        }
        let outputs: [[Float]]
        do {
            outputs = try await service.embed(windows: windows)
        } catch {
            throw SDKException.wrap(error, as: .backendError, "Reranking with \(service.model.id) failed")
        }
        guard outputs.count == windows.count, outputs.allSatisfy({ !$0.isEmpty && $0[0].isFinite }) else {
            throw SDKException(.backendError, "\(service.model.id) returned no score for some documents")
        }
        return RerankResult(
            scores: outputs.map { Double($0[0]) },
            modelId: service.model.id,
            truncatedDocuments: truncated,
            durationMs: start.duration(to: .now).milliseconds
        )
    }
}
