@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How ``RAGIndex/query(_:options:)`` retrieves and answers.
public struct RAGQueryOptions: Sendable, Equatable {
    /// How the sources are found.
    public var search: RAGSearchOptions
    /// The language model to answer with; `nil` uses the one loaded (loading it if needed).
    public var model: String?
    /// Generation settings for the answer. Greedy by default: answers should follow the sources.
    public var generation: LLMGenerationOptions
    /// The instruction the model gets before the numbered sources.
    public var instructions: String
    /// The question, for the original SDK's `ragQuery(_:)`, which takes it inside the
    /// options; ``RAGIndex/query(_:options:)`` takes it as its own argument and ignores this.
    public var question: String?

    /// The default instruction: answer from the sources only and cite them by number.
    public static let defaultInstructions = """
        Answer the question using only the numbered sources below. After each fact, write the \
        number of the source it comes from in square brackets, like [1]. If the sources do not \
        contain the answer, say that you do not know.
        """

    /// Creates options.
    public init(
        search: RAGSearchOptions = RAGSearchOptions(topK: 4),
        model: String? = nil,
        generation: LLMGenerationOptions = LLMGenerationOptions(maxTokens: 256, temperature: 0),
        instructions: String = RAGQueryOptions.defaultInstructions,
        question: String? = nil
    ) {
        self.search = search
        self.model = model
        self.generation = generation
        self.instructions = instructions
        self.question = question
    }

    /// The default options for `question` (the original SDK's factory).
    public static func defaults(question: String) -> RAGQueryOptions { RAGQueryOptions(question: question) }
}
