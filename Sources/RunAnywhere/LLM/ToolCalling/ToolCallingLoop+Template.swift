#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The loop in the model's own tool-call syntax, as llama-server runs it: the model's chat
/// template writes the tools and the history's calls and results, the grammar the backend's
/// chat layer derives from it constrains the call, and the chat layer's parser reads the
/// output back into text, reasoning and calls. The model chooses the tool itself (the
/// router serves the formats the SDK writes).
extension ToolCallingLoop {
    /// The backend's plan for the conversation under `choice`, or `nil` when the model's
    /// template writes no tools or the backend has no chat layer.
    ///
    /// A required call (`.required`, or a named tool) must come at once: the call grammar the
    /// chat layer writes for `.auto`, which matches from a call's opening on, then applies from
    /// the first token. (llama-server's grammar for a required call lets the model write text
    /// before it, and a small model fills its whole budget with text instead of calling.)
    func templatePlan(
        _ messages: [ChatMessage],
        choice: ToolChoice,
        service: any LLMService
    ) async throws(SDKException) -> ToolChatPlan? {
        try await Self.templatePlan(
            messages,
            tools: tools,
            choice: choice,
            parallel: toolOptions.maxParallelCalls > 1,
            reasoning: options.reasoning,
            service: service
        )
    }

    /// ``templatePlan(_:choice:service:)`` for any tools and options.
    static func templatePlan(
        _ messages: [ChatMessage],
        tools: [ToolDefinition],
        choice: ToolChoice,
        parallel: Bool,
        reasoning: ReasoningMode?,
        service: any LLMService
    ) async throws(SDKException) -> ToolChatPlan? {
        var offered = tools
        var required = choice == .required
        if case .tool(let name) = choice {
            offered = tools.filter { $0.name == name }
            required = true
        }
        func plan(_ asked: ToolChoice) async throws(SDKException) -> ToolChatPlan? {
            let request = ToolChatRequest(
                messages: messages,
                tools: asked == .none ? [] : offered,
                toolChoice: asked,
                parallelToolCalls: parallel,
                reasoning: reasoning
            )
            do {
                return try await service.prepareToolChat(request)
            } catch {
                throw SDKException.wrap(
                    error,
                    as: .generationFailed,
                    "Formatting the conversation with its tools failed"
                )
            }
        }
        guard var chosen = try await plan(choice == .none ? .none : .auto) else { return nil }
        guard required else { return chosen }
        guard let lazy = chosen.grammar, lazy.isLazy else { return try await plan(.required) }
        var eager = lazy
        eager.triggerWords = []
        eager.triggerExpressions = []
        chosen.grammar = eager
        return chosen
    }

    /// The loop, from the plan for its first turn.
    func runTemplate(
        _ conversation: [ChatMessage],
        first: ToolChatPlan,
        service: any LLMService
    ) async throws(SDKException) -> ToolCallingResult {
        var transcript = Transcript(messages: conversation)
        var plan = first
        var choice = toolOptions.toolChoice
        while true {
            transcript.iterations += 1
            let iteration = transcript.iterations
            if iteration > 1 {
                guard let next = try await templatePlan(transcript.messages, choice: choice, service: service) else {
                    throw SDKException(.generationFailed, "The model's template stopped writing tools")
                }
                plan = next
            }
            if case .tool(let name) = choice { emit(.toolCallStarted(name: name)) }
            let streamText = choice == .auto || choice == .none
            var named: String?
            if case .tool(let name) = choice { named = name }
            let (generation, reply, announced) = try await templateTurn(
                plan,
                streamText: streamText,
                announcedTool: named
            )
            var turnCalls: [ToolCall] = []
            // Only as many calls as allowed: one when parallel calls are off.
            for (index, call) in reply.toolCalls.enumerated()
            where turnCalls.count < toolOptions.maxParallelCalls
                && !turnCalls.contains(where: { $0.name == call.name && $0.arguments == call.arguments })
            {
                let id = call.id.isEmpty ? "call_\(iteration)_\(index)" : call.id
                turnCalls.append(ToolCall(id: id, name: call.name, arguments: call.arguments))
            }
            let content = reply.content.trimmed()
            let turn = Turn(text: content, generation: generation, selections: [])
            let syntax = "template:" + plan.syntax
            if turnCalls.isEmpty {
                transcript.messages.append(.assistant(content))
                return finish(content, transcript, turn, syntax: syntax)
            }
            for (index, call) in turnCalls.enumerated() {
                if choice != .tool(call.name), index >= announced { emit(.toolCallStarted(name: call.name)) }
                emit(.toolCall(call))
            }
            transcript.calls += turnCalls
            transcript.selections += turnCalls.map { ToolSelection(tool: $0.name, method: .model) }
            transcript.messages.append(ChatMessage(role: .assistant, content: content, toolCalls: turnCalls))
            guard toolOptions.executeTools else {
                return finish(content, transcript, turn, syntax: syntax)
            }
            transcript.results += await answer(turnCalls, in: &transcript.messages)
            if iteration >= toolOptions.maxIterations {
                return finish("", transcript, turn, reachedLimit: true, syntax: syntax)
            }
            choice = .auto
        }
    }

    /// One model turn on the plan's prompt under its grammar, read back by its parser, which
    /// reads the unfinished output at each token: with `streamText` the answer is streamed as
    /// it grows (call text is never shown), and each call's arguments stream as
    /// `.toolCallDelta` pieces, its `.toolCallStarted` first unless it is `announcedTool`.
    /// Returns how many calls were announced that way.
    ///
    /// What the model wrote is never refused: output the token limit cut is read as
    /// unfinished (its complete calls kept, a cut one dropped), and finished output the
    /// parser cannot read whole is read the same way.
    private func templateTurn(
        _ plan: ToolChatPlan,
        streamText: Bool,
        announcedTool: String?
    ) async throws(SDKException) -> (LLMGenerationResult, ParsedReply, announced: Int) {
        var options = self.options
        options.applyChatTemplate = false
        options.systemPrompt = nil
        options.grammar = plan.grammar
        options.preservedTokens = plan.preservedTokens
        options.stopSequences += plan.additionalStops.filter { !options.stopSequences.contains($0) }
        var generation: LLMGenerationResult?
        var answer = ""
        var shown = ""
        var deltas = ToolCallDeltaTracker()
        var announced = 0
        do {
            for try await event in llm.stream(.prompt(plan.prompt), options: options) {
                switch event {
                case .token(let text, let isThinking):
                    guard !isThinking else { continue }
                    answer += text
                    guard let partial = try? plan.parse(answer, true) else { continue }
                    if streamText, partial.content.hasPrefix(shown), partial.content.count > shown.count {
                        emit(.token(String(partial.content.dropFirst(shown.count))))
                        shown = partial.content
                    }
                    for delta in deltas.deltas(of: partial.written) {
                        if delta.index == announced {
                            if delta.name != announcedTool { emit(.toolCallStarted(name: delta.name)) }
                            announced += 1
                        }
                        emit(.toolCallDelta(delta))
                    }
                case .completed(let result):
                    generation = result
                }
            }
        } catch {
            throw SDKException.wrap(error, as: .generationFailed, "Generation failed")
        }
        guard var generation else { throw SDKException(.generationFailed, "The generation ended without a result") }
        let cut = generation.finishReason == .length || generation.finishReason == .contextFull
        let reply: ParsedReply
        do {
            reply = try plan.parse(generation.rawText, cut)
        } catch {
            Self.logger.warning(
                "The model's output does not follow its \(plan.syntax) syntax (\(error.message)); reading what is complete"
            )
            reply = try plan.parse(generation.rawText, true)
        }
        generation.text = reply.content.trimmed()
        generation.thinkingContent = reply.reasoning
        return (generation, reply, announced)
    }
}
