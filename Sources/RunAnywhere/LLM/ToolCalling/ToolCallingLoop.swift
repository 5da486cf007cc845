import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The tool-calling loop: prompt with the tools, a constrained call, validation, execution,
/// results fed back, until the model answers in text or the iteration limit is reached.
///
/// Under `.auto` with a router, a turn has up to three steps: the model writes freely
/// under a lazy grammar that completes at the call tag (so it stops there if it wants a
/// tool); the router scores the tools at that point; the call is then generated under a
/// grammar that fixes the chosen tool's name and types its arguments with its schema.
struct ToolCallingLoop: Sendable {
    static let logger = SDKLogger(category: "Tools")
    let llm: LLMCapability
    let registry: ToolRegistry
    let tools: [ToolDefinition]
    var options: LLMGenerationOptions
    let toolOptions: ToolCallingOptions
    let emit: @Sendable (ToolCallingEvent) -> Void

    func run(_ conversation: [ChatMessage]) async throws(SDKException) -> ToolCallingResult {
        try toolOptions.validate()
        try options.validate()
        guard options.grammar == nil else {
            throw SDKException(.invalidInput, "Tool calling makes its own grammar; pass no grammar in the options")
        }
        try ToolDefinition.validate(tools)
        if case .tool(let name) = toolOptions.toolChoice, !tools.contains(where: { $0.name == name }) {
            throw SDKException(.toolNotFound, "toolChoice names '\(name)', which is not among the tools")
        }
        guard !tools.isEmpty || toolOptions.toolChoice == .auto || toolOptions.toolChoice == .none else {
            throw SDKException(.invalidInput, "toolChoice \(toolOptions.toolChoice) needs at least one tool")
        }
        let service = try await llm.loadedService()
        if let routed = service as? RoutedLLMService {
            // A remote server calls tools natively; this device runs the loop below instead
            // when the server cannot be reached before anything was shown.
            let shown = AtomicFlag()
            return try await routed.sides.run(try llm.router.targets(for: routed.model), shown: shown) {
                target throws(SDKException) in
                guard target == .local else { return try await runNative(conversation, shown: shown) }
                var local = self
                local.options.pinnedTarget = .local
                return try await local.runLocal(conversation, service: try await routed.sides.service(for: .local))
            }
        }
        return try await runLocal(conversation, service: service)
    }

    /// The loop for a model that writes calls as text: tools in the system prompt, calls
    /// constrained by grammars and parsed from the text.
    private func runLocal(
        _ conversation: [ChatMessage],
        service: any LLMService
    ) async throws(SDKException) -> ToolCallingResult {
        let useTools = !tools.isEmpty && toolOptions.toolChoice != .none
        if useTools, toolOptions.format == nil {
            let messages = Self.withSystemPrompt(conversation, tools: nil, userSystem: options.systemPrompt)
            if let plan = try await templatePlan(messages, choice: toolOptions.toolChoice, service: service) {
                return try await runTemplate(messages, first: plan, service: service)
            }
        }
        let first = Self.firstTurn(
            conversation,
            tools: tools,
            toolOptions: toolOptions,
            systemPrompt: options.systemPrompt,
            chatTemplate: service.chatTemplate
        )
        let format = first.format
        var transcript = Transcript(messages: first.messages)
        let request = conversation.last { $0.role == .user }?.content ?? ""
        var choice = useTools ? toolOptions.toolChoice : .none
        while true {
            transcript.iterations += 1
            let iteration = transcript.iterations
            let prompt: String
            do {
                prompt = try await service.formatChat(transcript.messages, addAssistantTurn: true)
            } catch {
                throw SDKException.wrap(error, as: .generationFailed, "Formatting the conversation failed")
            }
            let turn = try await runTurn(prompt: prompt, choice: choice, format: format, request: request)
            transcript.selections += turn.selections
            let parsed = format.parse(turn.text, tools: tools)
            if parsed.dropped > 0 {
                Self.logger.warning(
                    "Dropped \(parsed.dropped) tool call(s) the model did not complete (finish: \(turn.generation.finishReason))"
                )
            }
            var turnCalls: [ToolCall] = []
            // Only as many calls as allowed: one when parallel calls are off.
            for (index, call) in parsed.calls.prefix(toolOptions.maxParallelCalls).enumerated()
            where !turnCalls.contains(where: { $0.name == call.name && $0.arguments == call.arguments }) {
                turnCalls.append(ToolCall(id: "call_\(iteration)_\(index)", name: call.name, arguments: call.arguments))
            }
            if turnCalls.isEmpty {
                let answer = parsed.content.trimmed()
                transcript.messages.append(.assistant(answer))
                return finish(answer, transcript, turn, syntax: format.rawValue)
            }
            for call in turnCalls { emit(.toolCall(call)) }
            transcript.calls += turnCalls
            transcript.messages.append(format.assistantMessage(content: parsed.content, calls: turnCalls, tools: tools))
            guard toolOptions.executeTools else {
                return finish(parsed.content.trimmed(), transcript, turn, syntax: format.rawValue)
            }
            let turnResults = await execute(turnCalls)
            for toolResult in turnResults {
                emit(.toolResult(toolResult))
                transcript.messages.append(format.toolMessage(toolResult))
            }
            transcript.results += turnResults
            if iteration >= toolOptions.maxIterations {
                return finish("", transcript, turn, reachedLimit: true, syntax: format.rawValue)
            }
            choice = .auto
        }
    }

    /// The loop for a remote server that calls tools natively (OpenAI `tools` and
    /// `tool_calls`): the conversation and the tools go as they are, each turn's calls come
    /// back as values, and results go back as `tool` turns answering their call ids.
    private func runNative(
        _ conversation: [ChatMessage],
        shown: AtomicFlag
    ) async throws(SDKException) -> ToolCallingResult {
        var transcript = Transcript(messages: conversation)
        var choice = tools.isEmpty ? ToolChoice.none : toolOptions.toolChoice
        while true {
            transcript.iterations += 1
            let iteration = transcript.iterations
            var options = self.options
            options.pinnedTarget = .remote
            options.nativeTools = choice == .none ? [] : tools
            options.nativeToolChoice = choice
            var generation: LLMGenerationResult?
            do {
                for try await event in llm.stream(.messages(transcript.messages), options: options) {
                    switch event {
                    case .token(let text, let isThinking):
                        guard !isThinking, !text.isEmpty else { continue }
                        shown.set()
                        emit(.token(text))
                    case .completed(let result):
                        generation = result
                    }
                }
            } catch {
                throw SDKException.wrap(error, as: .generationFailed, "Generation failed")
            }
            guard let generation else {
                throw SDKException(.generationFailed, "The generation ended without a result")
            }
            let turn = Turn(text: generation.text, generation: generation, selections: [])
            var turnCalls: [ToolCall] = []
            for (index, call) in generation.toolCalls.enumerated()
            where !turnCalls.contains(where: { $0.name == call.name && $0.arguments == call.arguments }) {
                let id = call.id.isEmpty ? "call_\(iteration)_\(index)" : call.id
                turnCalls.append(ToolCall(id: id, name: call.name, arguments: call.arguments))
            }
            let content = generation.text.trimmed()
            transcript.messages.append(
                ChatMessage(role: .assistant, content: content, toolCalls: turnCalls.isEmpty ? nil : turnCalls)
            )
            if turnCalls.isEmpty {
                return finish(content, transcript, turn, syntax: "remote")
            }
            shown.set()
            for call in turnCalls {
                emit(.toolCallStarted(name: call.name))
                emit(.toolCall(call))
            }
            transcript.calls += turnCalls
            transcript.selections += turnCalls.map { ToolSelection(tool: $0.name, method: .model) }
            guard toolOptions.executeTools else {
                return finish(content, transcript, turn, syntax: "remote")
            }
            transcript.results += await answer(turnCalls, in: &transcript.messages)
            if iteration >= toolOptions.maxIterations {
                return finish("", transcript, turn, reachedLimit: true, syntax: "remote")
            }
            choice = .auto
        }
    }

    /// What a loop has done so far: the conversation as the model reads it, every call,
    /// result and routing decision, and the turns taken.
    struct Transcript {
        var messages: [ChatMessage]
        var calls: [ToolCall] = []
        var results: [ToolResult] = []
        var selections: [ToolSelection] = []
        var iterations = 0
    }

    /// The loop's result, announced as `.completed`: `text` ends the conversation, `turn` is
    /// the last model turn, `reachedLimit` says the iterations ran out, `syntax` which call
    /// syntax the model wrote.
    func finish(
        _ text: String,
        _ transcript: Transcript,
        _ turn: Turn,
        reachedLimit: Bool = false,
        syntax: String?
    ) -> ToolCallingResult {
        var value = ToolCallingResult(
            text: text,
            toolCalls: transcript.calls,
            toolResults: transcript.results,
            selections: transcript.selections,
            iterations: transcript.iterations,
            reachedMaxIterations: reachedLimit,
            messages: transcript.messages,
            generation: turn.generation
        )
        value.callSyntax = syntax
        emit(.completed(value))
        return value
    }

    struct Turn {
        var text: String
        var generation: LLMGenerationResult
        var selections: [ToolSelection]

        /// The turn with `text` written before it (what the model wrote before the call tag).
        func prefixed(_ text: String) -> Turn {
            var copy = self
            copy.text = text + copy.text
            return copy
        }
    }

    /// One model turn under `choice`.
    private func runTurn(
        prompt: String,
        choice: ToolChoice,
        format: ToolCallFormat,
        request: String
    ) async throws(SDKException) -> Turn {
        let maxCalls = toolOptions.maxParallelCalls
        switch choice {
        case .none:
            let generation = try await generate(prompt, grammar: nil, streamText: true, format: format)
            return Turn(text: generation.text, generation: generation, selections: [])
        case .auto where toolOptions.routing == .model:
            let grammar = try format.grammar(tools: tools, maxCalls: maxCalls, lazy: true)
            let generation = try await generate(prompt, grammar: grammar, streamText: true, format: format)
            let selections = modelSelections(generation.text, format: format)
            return Turn(text: generation.text, generation: generation, selections: selections)
        case .auto:
            let intent = try await generate(prompt, grammar: format.callIntentGrammar, streamText: true, format: format)
            guard let tag = intent.text.firstRange(of: format.openTag) else {
                return Turn(text: intent.text, generation: intent, selections: [])
            }
            let before = String(intent.text[..<tag.lowerBound])
            return try await routedCall(prompt: prompt + before, candidates: tools, format: format, request: request)
                .prefixed(before)
        case .required:
            guard toolOptions.routing != .model else {
                let grammar = try format.grammar(tools: tools, maxCalls: maxCalls, lazy: false)
                let generation = try await generate(prompt, grammar: grammar, streamText: false, format: format)
                let selections = modelSelections(generation.text, format: format)
                return Turn(text: generation.text, generation: generation, selections: selections)
            }
            return try await routedCall(prompt: prompt, candidates: tools, format: format, request: request)
        case .tool(let name):
            let chosen = tools.filter { $0.name == name }
            let grammar = try format.grammar(tools: chosen, maxCalls: maxCalls, lazy: false)
            emit(.toolCallStarted(name: name))
            let generation = try await generate(prompt, grammar: grammar, streamText: false, format: format)
            return Turn(
                text: generation.text,
                generation: generation,
                selections: [ToolSelection(tool: name, method: .model)]
            )
        }
    }

    /// Routes among `candidates` at the end of `prompt`, then generates the call.
    private func routedCall(
        prompt: String,
        candidates: [ToolDefinition],
        format: ToolCallFormat,
        request: String
    ) async throws(SDKException) -> Turn {
        var likelihoods: [Double]?
        if candidates.count > 1, toolOptions.routing == .likelihood || toolOptions.routing == .hybrid {
            likelihoods = try? await llm.loadedService().logLikelihoods(
                of: candidates.map { format.namePrefix($0.name) },
                after: prompt + format.openTag + format.callLead
            )
        }
        let selection =
            candidates.count == 1
            ? ToolSelection(tool: candidates[0].name, method: toolOptions.routing)
            : ToolRouter(routing: toolOptions.routing).choose(
                among: candidates,
                request: request,
                likelihoods: likelihoods
            )
        emit(.toolCallStarted(name: selection.tool))
        let chosen = candidates.filter { $0.name == selection.tool }
        let grammar = try format.grammar(tools: chosen, maxCalls: toolOptions.maxParallelCalls, lazy: false)
        let generation = try await generate(prompt, grammar: grammar, streamText: false, format: format)
        return Turn(text: generation.text, generation: generation, selections: [selection])
    }

    /// One generation on an already formatted prompt, its answer text streamed as tokens
    /// (call text held back) when `streamText`, and the calls' arguments streamed as
    /// `.toolCallDelta` pieces when the format writes them as JSON.
    private func generate(
        _ prompt: String,
        grammar: LLMGrammar?,
        streamText: Bool,
        format: ToolCallFormat
    ) async throws(SDKException) -> LLMGenerationResult {
        var options = self.options
        options.applyChatTemplate = false
        options.systemPrompt = nil
        options.grammar = grammar
        var deltas = ToolCallDeltaTracker(syntax: format.syntax)
        guard streamText || deltas.streams else { return try await llm.generate(.prompt(prompt), options: options) }
        var holdback = CallTextHoldback(tag: format.openTag)
        var output = ""
        var announced = 0
        do {
            for try await event in llm.stream(.prompt(prompt), options: options) {
                switch event {
                case .token(let text, let isThinking):
                    guard !isThinking else { continue }
                    output += text
                    if streamText, let ready = holdback.consume(text) { emit(.token(ready)) }
                    for delta in deltas.deltas(in: output) {
                        // Unless the tool was announced before the turn, a call starts with its first piece.
                        if streamText, delta.index == announced {
                            emit(.toolCallStarted(name: delta.name))
                            announced += 1
                        }
                        emit(.toolCallDelta(delta))
                    }
                case .completed(let result):
                    guard streamText else { return result }
                    if let rest = holdback.finish() { emit(.token(rest)) }
                    if announced == 0, result.text.contains(format.openTag),
                        let started = firstCallName(result.text, format)
                    {
                        emit(.toolCallStarted(name: started))
                    }
                    return result
                }
            }
        } catch {
            throw SDKException.wrap(error, as: .generationFailed, "Generation failed")
        }
        throw SDKException(.generationFailed, "The generation ended without a result")
    }

    /// Runs a turn's calls and feeds each result back as a `tool` turn answering its call's id.
    func answer(_ turnCalls: [ToolCall], in messages: inout [ChatMessage]) async -> [ToolResult] {
        let turnResults = await execute(turnCalls)
        for toolResult in turnResults {
            emit(.toolResult(toolResult))
            messages.append(ChatMessage(role: .tool, content: toolResult.messageContent, toolCallId: toolResult.callId))
        }
        return turnResults
    }

    /// Runs a turn's calls concurrently; results keep the calls' order.
    private func execute(_ calls: [ToolCall]) async -> [ToolResult] {
        let registry = self.registry
        let timeout = toolOptions.executorTimeout
        return await withTaskGroup(of: (Int, ToolResult).self) { group in
            for (index, call) in calls.enumerated() {
                group.addTask { (index, await registry.execute(call, timeout: timeout)) }
            }
            var results = [ToolResult?](repeating: nil, count: calls.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
    }

    private func modelSelections(_ text: String, format: ToolCallFormat) -> [ToolSelection] {
        format.parse(text, tools: tools).calls.map { ToolSelection(tool: $0.name, method: .model) }
    }

    private func firstCallName(_ text: String, _ format: ToolCallFormat) -> String? {
        format.parse(text, tools: tools).calls.first?.name
    }

    /// The conversation as the model first reads it, and the tool-call format: the turns
    /// written in that format, and the tools (unless the choice is `.none`) in the system prompt.
    static func firstTurn(
        _ conversation: [ChatMessage],
        tools: [ToolDefinition],
        toolOptions: ToolCallingOptions,
        systemPrompt: String?,
        chatTemplate: String?
    ) -> (format: ToolCallFormat, messages: [ChatMessage]) {
        let format = toolOptions.format ?? ToolCallFormat.detect(chatTemplate: chatTemplate)
        let useTools = !tools.isEmpty && toolOptions.toolChoice != .none
        let messages = withSystemPrompt(
            format.render(conversation),
            tools: useTools ? format.systemPrompt(tools: tools) : nil,
            userSystem: systemPrompt
        )
        return (format, messages)
    }

    /// The conversation with the tools' instructions in its system message (after the
    /// caller's own system prompt, if any).
    static func withSystemPrompt(_ conversation: [ChatMessage], tools: String?, userSystem: String?) -> [ChatMessage] {
        var messages = conversation
        var system: [String] = []
        if let first = messages.first, first.role == .system {
            system.append(first.content)
            messages.removeFirst()
        } else if let userSystem, !userSystem.isEmpty {
            system.append(userSystem)
        }
        if let tools { system.append(tools) }
        guard !system.isEmpty else { return messages }
        return [.system(system.joined(separator: "\n\n"))] + messages
    }
}

/// Holds back streamed text that may be the start of a call tag, so only answer text is
/// streamed as tokens.
struct CallTextHoldback {
    let tag: String
    private var pending = ""
    private var inCall = false

    init(tag: String) {
        self.tag = tag
    }

    /// The text that is safe to show now, if any.
    mutating func consume(_ piece: String) -> String? {
        guard !inCall else { return nil }
        pending += piece
        if let range = pending.firstRange(of: tag) {
            inCall = true
            let ready = String(pending[..<range.lowerBound])
            pending = ""
            return ready.isEmpty ? nil : ready
        }
        // Keep the longest suffix that could still grow into the tag.
        var keep = 0
        for length in stride(from: min(tag.count - 1, pending.count), to: 0, by: -1)
        where tag.hasPrefix(pending.suffix(length)) {
            keep = length
            break
        }
        let ready = String(pending.dropLast(keep))
        pending = String(pending.suffix(keep))
        return ready.isEmpty ? nil : ready
    }

    /// Whatever is left once the generation ended without a call.
    mutating func finish() -> String? {
        defer { pending = "" }
        return inCall || pending.isEmpty ? nil : pending
    }
}
