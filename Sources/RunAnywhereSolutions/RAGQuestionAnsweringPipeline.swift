@_spi(Backend) import RunAnywhere
import RunAnywhereRAG

/// Questions answered from a RAG index, with the sources cited.
struct RAGQuestionAnsweringPipeline: SolutionPipeline {
    let index: RAGIndex
    let options: RAGQueryOptions

    static func prepare(_ solution: RAGSolution, sdk: RunAnywhereSDK) async throws(SDKException) -> Self {
        let index = try await sdk.openRAGIndex(solution.index)
        if let llm = solution.llm { try await sdk.loadModel(llm) }
        return Self(
            index: index,
            options: RAGQueryOptions(
                search: RAGSearchOptions(topK: solution.topK),
                model: solution.llm,
                generation: LLMGenerationOptions(maxTokens: solution.maxTokens, temperature: solution.temperature),
                instructions: solution.instructions
            )
        )
    }

    func process(
        _ input: String,
        index number: Int,
        emit: @Sendable (SolutionEvent) -> Void
    ) async throws(SDKException) -> (text: String, details: [String: String]) {
        let answer = try await index.query(input, options: options)
        let sources = answer.sources.enumerated().map { "[\($0.offset + 1)] \($0.element.documentId)" }
        let cited = answer.citations.map { "[\($0.number)] \($0.documentId)" }
        return (answer.text, ["sources": sources.joined(separator: "; "), "citations": cited.joined(separator: "; ")])
    }

    func close() async {}
}
