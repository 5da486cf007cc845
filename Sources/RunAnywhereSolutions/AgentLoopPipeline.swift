@_spi(Backend) import RunAnywhere
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One conversation in which the model calls tools: each input is a user turn, answered
/// after the tool calls it needs; the conversation carries over from input to input.
final class AgentLoopPipeline: SolutionPipeline {
    private let sdk: RunAnywhereSDK
    private let solution: AgentLoopSolution
    private let definitions: [ToolDefinition]
    private let messages: Mutex<[ChatMessage]>

    private init(sdk: RunAnywhereSDK, solution: AgentLoopSolution, definitions: [ToolDefinition]) {
        self.sdk = sdk
        self.solution = solution
        self.definitions = definitions
        messages = Mutex([.system(solution.systemPrompt)])
    }

    /// Checks the named tools, registers the command tools, loads the model.
    ///
    /// - Throws: `.invalidConfiguration` for a tool name the registry does not have or a
    ///   command tool whose name is taken; the model's load errors.
    static func prepare(
        _ solution: AgentLoopSolution,
        sdk: RunAnywhereSDK
    ) async throws(SDKException) -> AgentLoopPipeline {
        let known = sdk.tools.definitions
        var definitions: [ToolDefinition] = []
        for name in solution.tools {
            guard let definition = known.first(where: { $0.name == name }) else {
                throw SDKException(
                    .invalidConfiguration,
                    "The agent loop names the tool '\(name)', which is not registered",
                    recovery: "Register it with sdk.tools.register, or declare it with a command in the YAML"
                )
            }
            definitions.append(definition)
        }
        var registered: [String] = []
        do throws(SDKException) {
            for tool in solution.commandTools {
                guard !known.contains(where: { $0.name == tool.definition.name }),
                    !registered.contains(tool.definition.name)
                else {
                    throw SDKException(
                        .invalidConfiguration,
                        "The tool name '\(tool.definition.name)' is already taken"
                    )
                }
                try sdk.tools.register(tool.definition, executor: CommandToolExecutor(tool: tool).run)
                registered.append(tool.definition.name)
                definitions.append(tool.definition)
            }
            try await sdk.loadModel(solution.llm)
        } catch {
            for name in registered { _ = sdk.tools.unregister(name) }
            throw error
        }
        return AgentLoopPipeline(sdk: sdk, solution: solution, definitions: definitions)
    }

    func process(
        _ input: String,
        index: Int,
        emit: @Sendable (SolutionEvent) -> Void
    ) async throws(SDKException) -> (text: String, details: [String: String]) {
        let conversation = messages.withLock { $0 } + [.user(input)]
        let result = try await sdk.generateWithTools(
            messages: conversation,
            tools: definitions,
            options: LLMGenerationOptions(maxTokens: solution.maxTokens, temperature: solution.temperature),
            toolOptions: ToolCallingOptions(toolChoice: solution.toolChoice, maxIterations: solution.maxIterations)
        )
        for call in result.toolCalls { emit(.toolCall(index: index, name: call.name, arguments: call.arguments)) }
        for outcome in result.toolResults {
            emit(
                .toolResult(index: index, name: outcome.name, output: outcome.messageContent, isError: outcome.isError)
            )
        }
        messages.withLock { $0 = result.messages }
        return (
            result.text,
            ["tool_calls": String(result.toolCalls.count), "iterations": String(result.iterations)]
        )
    }

    func close() async {
        for tool in solution.commandTools { _ = sdk.tools.unregister(tool.definition.name) }
    }
}
