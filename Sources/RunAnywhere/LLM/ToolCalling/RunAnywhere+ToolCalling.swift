#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// Registers a tool and its executor in ``tools``.
    ///
    /// - Throws: `.invalidTool` for a malformed definition or a duplicate name.
    public func registerTool(_ definition: ToolDefinition, executor: @escaping JSONToolExecutor) throws(SDKException) {
        try tools.register(definition, executor: executor)
    }

    /// Removes a registered tool; returns whether it was there.
    @discardableResult
    public func unregisterTool(_ name: String) -> Bool {
        tools.unregister(name)
    }

    /// The registered tools.
    public func registeredTools() -> [ToolDefinition] {
        tools.definitions
    }

    /// The original SDK's name for ``registeredTools()``.
    public func getRegisteredTools() -> [ToolDefinition] { registeredTools() }

    /// Removes every registered tool.
    public func clearTools() {
        tools.clear()
    }

    /// Runs one call with the registered executor (arguments validated first).
    public func executeTool(_ call: ToolCall, timeout: Double? = 30) async -> ToolResult {
        await tools.execute(call, timeout: timeout)
    }

    /// Answers `prompt`, calling tools as the model asks: each call's name and arguments are
    /// constrained by a grammar built from the tools' schemas, validated, executed, and the
    /// results fed back until the model answers in text.
    ///
    /// ```swift
    /// try sdk.registerTool(weather) { arguments in ["temperature_c": 21] }
    /// let result = try await sdk.generateWithTools(
    ///     "What's the weather in Paris?",
    ///     toolOptions: ToolCallingOptions(toolChoice: .required)
    /// )
    /// print(result.toolCalls, result.text)
    /// ```
    ///
    /// - Parameters:
    ///   - prompt: What the user asks.
    ///   - tools: The tools offered; `nil` offers every registered tool. Executors come from
    ///     the registry: a call to a tool without one gets a failed result.
    ///   - options: Generation options for every model turn.
    ///   - toolOptions: Tool choice, iteration limit, routing, timeouts.
    /// - Throws: `.invalidTool`, `.toolNotFound` (a `toolChoice` naming no tool),
    ///   `.invalidInput`, `.invalidStructuredOutput` (a call cut off by `maxTokens`), and
    ///   the errors of ``generate(_:options:)``. A tool that throws is not an error of the
    ///   call: its ``ToolResult`` carries the message.
    public func generateWithTools(
        _ prompt: String,
        tools: [ToolDefinition]? = nil,
        options: LLMGenerationOptions = LLMGenerationOptions(),
        toolOptions: ToolCallingOptions = ToolCallingOptions()
    ) async throws(SDKException) -> ToolCallingResult {
        guard !prompt.trimmed().isEmpty else {
            throw SDKException(.emptyPrompt, "The prompt is empty")
        }
        return try await generateWithTools(
            messages: [.user(prompt)],
            tools: tools,
            options: options,
            toolOptions: toolOptions
        )
    }

    /// ``generateWithTools(_:tools:options:toolOptions:)`` with the registered tools, under the
    /// original SDK's labels.
    public func generateWithTools(
        prompt: String,
        options: LLMGenerationOptions = LLMGenerationOptions(),
        toolOptions: ToolCallingOptions = ToolCallingOptions()
    ) async throws(SDKException) -> ToolCallingResult {
        try await generateWithTools(prompt, options: options, toolOptions: toolOptions)
    }

    /// Continues a conversation, calling tools as the model asks.
    ///
    /// The conversation counterpart of ``generateWithTools(_:tools:options:toolOptions:)``.
    public func generateWithTools(
        messages: [ChatMessage],
        tools: [ToolDefinition]? = nil,
        options: LLMGenerationOptions = LLMGenerationOptions(),
        toolOptions: ToolCallingOptions = ToolCallingOptions()
    ) async throws(SDKException) -> ToolCallingResult {
        let loop = ToolCallingLoop(
            llm: try runtime().llm,
            registry: self.tools,
            tools: tools ?? self.tools.definitions,
            options: options,
            toolOptions: toolOptions,
            emit: { _ in }
        )
        return try await loop.run(messages)
    }

    /// Streams a tool-calling loop: answer tokens, each call as it starts and completes, each
    /// result, then the final result.
    ///
    /// Stopping the iteration early cancels the loop.
    public func generateWithToolsStream(
        messages: [ChatMessage],
        tools: [ToolDefinition]? = nil,
        options: LLMGenerationOptions = LLMGenerationOptions(),
        toolOptions: ToolCallingOptions = ToolCallingOptions()
    ) throws(SDKException) -> AsyncThrowingStream<ToolCallingEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ToolCallingEvent.self)
        let loop = ToolCallingLoop(
            llm: try runtime().llm,
            registry: self.tools,
            tools: tools ?? self.tools.definitions,
            options: options,
            toolOptions: toolOptions,
            emit: { continuation.yield($0) }
        )
        let task = Task {
            do {
                _ = try await loop.run(messages)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        return stream
    }
}

extension RunAnywhere {
    /// Registers a tool and its executor on the shared instance.
    ///
    /// Calls ``RunAnywhereSDK/registerTool(_:executor:)`` on the shared instance.
    public static func registerTool(
        _ definition: ToolDefinition,
        executor: @escaping JSONToolExecutor
    ) throws(SDKException) {
        try sdk().registerTool(definition, executor: executor)
    }

    /// Registers a tool whose executor maps argument members to result members, as the
    /// original SDK's does, on the shared instance: a tool of the same name is replaced, and
    /// nothing is thrown (a malformed definition, or no SDK yet, is logged as an error).
    ///
    /// In asynchronous code this overload is chosen for a closure that fits both executor
    /// types; ``registerTool(_:executor:)-(_,JSONToolExecutor)`` is the form that throws.
    public static func registerTool(_ definition: ToolDefinition, executor: @escaping ToolExecutor) async {
        do throws(SDKException) {
            try sdk().tools.replace(definition, executor: JSONValue.toolExecutor(executor))
        } catch {
            SDKLogger(category: "ToolCalling").error("Tool '\(definition.name)' not registered: \(error.message)")
        }
    }

    /// Removes a registered tool; returns whether it was there.
    @discardableResult
    public static func unregisterTool(_ name: String) -> Bool {
        shared?.unregisterTool(name) ?? false
    }

    /// The shared instance's registered tools.
    public static func registeredTools() -> [ToolDefinition] {
        shared?.registeredTools() ?? []
    }

    /// The original SDK's name for ``registeredTools()``.
    public static func getRegisteredTools() -> [ToolDefinition] { registeredTools() }

    /// Removes every tool registered on the shared instance.
    public static func clearTools() {
        shared?.clearTools()
    }

    /// Runs one call with the shared instance's registered executor. As every failure of a
    /// tool, a missing instance is the result's ``ToolResult/error``, not a thrown error.
    public static func executeTool(_ call: ToolCall, timeout: Double? = 30) async -> ToolResult {
        guard let shared else {
            return ToolResult(callId: call.id, name: call.name, error: "The SDK is not initialized")
        }
        return await shared.executeTool(call, timeout: timeout)
    }

    /// Answers `prompt`, calling tools as the model asks.
    ///
    /// Calls ``RunAnywhereSDK/generateWithTools(_:tools:options:toolOptions:)`` on the shared instance.
    public static func generateWithTools(
        _ prompt: String,
        tools: [ToolDefinition]? = nil,
        options: LLMGenerationOptions = LLMGenerationOptions(),
        toolOptions: ToolCallingOptions = ToolCallingOptions()
    ) async throws(SDKException) -> ToolCallingResult {
        try await sdk().generateWithTools(prompt, tools: tools, options: options, toolOptions: toolOptions)
    }

    /// ``generateWithTools(_:tools:options:toolOptions:)`` with the registered tools, under the
    /// original SDK's labels.
    public static func generateWithTools(
        prompt: String,
        options: LLMGenerationOptions = LLMGenerationOptions(),
        toolOptions: ToolCallingOptions = ToolCallingOptions()
    ) async throws(SDKException) -> ToolCallingResult {
        try await sdk().generateWithTools(prompt, options: options, toolOptions: toolOptions)
    }

    /// Continues a conversation, calling tools as the model asks.
    ///
    /// Calls ``RunAnywhereSDK/generateWithTools(messages:tools:options:toolOptions:)`` on the shared instance.
    public static func generateWithTools(
        messages: [ChatMessage],
        tools: [ToolDefinition]? = nil,
        options: LLMGenerationOptions = LLMGenerationOptions(),
        toolOptions: ToolCallingOptions = ToolCallingOptions()
    ) async throws(SDKException) -> ToolCallingResult {
        try await sdk().generateWithTools(messages: messages, tools: tools, options: options, toolOptions: toolOptions)
    }
}
