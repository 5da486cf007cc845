@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A second stage that re-orders the best candidates of a search with a slower, finer judge.
public enum RAGReranker: Sendable, Equatable, Codable {
    /// The loaded language model reads each of the first `candidates` chunks with the query
    /// and is asked whether the passage answers it; chunks are ordered by the log-odds of
    /// its "Yes" over "No". Needs a loaded language model whose backend scores text
    /// (llama.cpp does; others throw `.backendError`).
    case languageModel(candidates: Int)

    /// The loaded reranking model (`RunAnywhereSDK.loadRerankModel(_:configuration:)`), a
    /// cross-encoder, scores each of the first `candidates` chunks with the query in one
    /// batch; chunks are ordered by its scores. Faster and usually better than
    /// ``languageModel(candidates:)``; needs a GGUF reranker.
    case crossEncoder(candidates: Int)

    /// How many first-stage results the reranker reads.
    var candidates: Int {
        switch self {
        case .languageModel(let candidates), .crossEncoder(let candidates): candidates
        }
    }

    /// Scores `results` for `query`, best first (equal scores keep the first stage's order).
    func rerank(
        _ results: [RAGSearchResult],
        query: String,
        runtime: SDKRuntime
    ) async throws(SDKException) -> [RAGSearchResult] {
        switch self {
        case .languageModel:
            return try await Self.askLanguageModel(results, query: query, llm: runtime.llm)
        case .crossEncoder:
            let scored = try await runtime.reranking.rerank(query, documents: results.map(\.text))
            return scored.ranking.map { index in
                var result = results[index]
                result.score = scored.scores[index]
                return result
            }
        }
    }

    private static func askLanguageModel(
        _ results: [RAGSearchResult],
        query: String,
        llm: LLMCapability
    ) async throws(SDKException) -> [RAGSearchResult] {
        let service = try await llm.loadedService()
        var scored: [(RAGSearchResult, Double)] = []
        for result in results {
            let messages = [
                ChatMessage(
                    role: .system,
                    content: "You judge whether a passage answers a question. Reply with Yes or No."
                ),
                ChatMessage(
                    role: .user,
                    content: "Passage: \(result.text)\n\nQuestion: \(query)\n\nDoes the passage answer the question?"
                ),
            ]
            do {
                let prompt = try await service.formatChat(messages, addAssistantTurn: true)
                let odds = try await service.logLikelihoods(of: ["Yes", "No"], after: prompt)
                var rescored = result
                rescored.score = odds[0] - odds[1]
                scored.append((rescored, rescored.score))
            } catch {
                throw SDKException.wrap(error, as: .backendError, "Reranking with \(service.model.id) failed")
            }
        }
        // Stable: equal scores keep the first stage's order.
        return scored.enumerated().sorted { a, b in
            a.element.1 != b.element.1 ? a.element.1 > b.element.1 : a.offset < b.offset
        }.map(\.element.0)
    }
}
