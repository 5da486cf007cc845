import Foundation
import Hummingbird
import RunAnywhere
import Synchronization

/// `POST /v1/chat/completions`: plain chat, JSON-schema output and tool calls, whole or
/// streamed as server-sent events in OpenAI's chunk format. A vision-language model takes
/// `image_url` parts (base64 `data:` URLs) in its user turns.
struct ChatCompletionsEndpoint: Sendable {
    let state: ServerState

    /// What the request asks the model to produce.
    private enum Mode: Sendable {
        case text
        case schema(JSONSchema, strict: Bool)
        case tools([ToolDefinition], ToolChoice, parallel: Bool)
    }

    /// One request, checked and ready to run.
    private struct Job: Sendable {
        let id = "chatcmpl-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let created = Int(Date().timeIntervalSince1970)
        let arrival = ContinuousClock.now
        let model: ModelInfo
        let messages: [ChatMessage]
        let parameters: GenerationParameters
        let mode: Mode
        let includeUsage: Bool
    }

    func handle(_ request: Request) async throws -> Response {
        let body = try await state.decode(ChatCompletionRequest.self, from: request)
        let job = try prepare(body)
        guard body.stream == true else {
            return try await state.withModel(job.model) { .json(try await complete(job)) }
        }
        let lease = try await state.holdModel(job.model)
        let options: LLMGenerationOptions
        do {
            options = try await generationOptions(job)
        } catch {
            await lease.release()
            throw error
        }
        return .eventStream { events in
            await stream(job, options: options, to: events)
            await lease.release()
        }
    }

    /// `POST /apply-template` (llama-server's route): the prompt a chat completion request would
    /// have the model read, `{"prompt": …}`, with nothing generated. The request is checked as
    /// a completion's is; the model is loaded if it is not.
    func prompt(_ request: Request) async throws -> Response {
        let body = try await state.decode(ChatCompletionRequest.self, from: request)
        let job = try prepare(body)
        guard job.model.category == .llm else {
            throw OpenAIError.invalid(
                "'\(job.model.id)' is a vision-language model; /apply-template formats for language models",
                param: "model",
                code: "model_not_supported"
            )
        }
        let prompt = try await state.withModel(job.model) {
            switch job.mode {
            case .tools(let tools, let choice, let parallel):
                try await state.sdk.formatPrompt(
                    job.messages,
                    tools: tools,
                    toolOptions: toolOptions(choice, parallel: parallel)
                )
            case .text, .schema:
                try await state.sdk.formatPrompt(job.messages)
            }
        }
        return .json(["prompt": .string(prompt)])
    }

    private func prepare(_ body: ChatCompletionRequest) throws(OpenAIError) -> Job {
        let model = try state.host.model(body.model, forAnyOf: [.llm, .vision])
        if body.streamOptions != nil, body.stream != true {
            throw .invalid(
                "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
                param: "stream_options"
            )
        }
        let messages = try body.conversation()
        try Self.checkImages(messages, for: model)
        let parameters = GenerationParameters(
            maxTokens: body.maxCompletionTokens ?? body.maxTokens,
            maxTokensParam: body.maxCompletionTokens != nil ? "max_completion_tokens" : "max_tokens",
            temperature: body.temperature,
            topP: body.topP,
            seed: body.seed,
            stop: body.stop?.values ?? [],
            n: body.n,
            ignoreEndOfSequence: body.ignoreEos ?? false,
            reasoning: try body.reasoning()
        )
        _ = try parameters.options(contextLength: Int.max)  // checks the fields before anything loads
        let tools = try body.toolDefinitions()
        let choice = try body.sdkToolChoice()
        if case .tool(let name) = choice, !tools.contains(where: { $0.name == name }) {
            throw .invalid("tool_choice names '\(name)', which is not among the tools", param: "tool_choice")
        }
        if choice == .required, tools.isEmpty {
            throw .invalid("tool_choice 'required' needs at least one tool", param: "tool_choice")
        }
        let schema = try Self.schema(of: body.responseFormat)
        if model.category == .vision, !tools.isEmpty || schema != nil {
            throw .invalid(
                "Tools and response formats run on language models here; '\(model.id)' is a vision-language model",
                param: tools.isEmpty ? "response_format" : "tools",
                code: "model_not_supported"
            )
        }
        let mode: Mode
        if !tools.isEmpty, choice != .none {
            guard schema == nil else {
                throw .invalid("response_format cannot be combined with tools here", param: "response_format")
            }
            mode = .tools(tools, choice, parallel: body.parallelToolCalls ?? true)
        } else if let schema {
            mode = .schema(schema.schema, strict: schema.strict)
        } else {
            mode = .text
        }
        return Job(
            model: model,
            messages: messages,
            parameters: parameters,
            mode: mode,
            includeUsage: body.streamOptions?.includeUsage ?? false
        )
    }

    /// Images go to a vision-language model only, and each is read and checked here, so a bad
    /// one is a 400 before anything loads or streams.
    /// `param` names the request's field for the message at an index.
    static func checkImages(
        _ messages: [ChatMessage],
        for model: ModelInfo,
        param: (Int) -> String = { "messages[\($0)]" }
    ) throws(OpenAIError) {
        for (index, message) in messages.enumerated() {
            guard let images = message.images, !images.isEmpty else { continue }
            guard model.category == .vision else {
                throw .invalid(
                    "Images need a vision-language model; '\(model.id)' reads text only",
                    param: param(index),
                    code: "model_not_supported"
                )
            }
            for image in images {
                do {
                    _ = try image.prepared()
                } catch {
                    throw OpenAIError(error, param: param(index))
                }
            }
        }
    }

    private static func schema(
        of format: ChatCompletionRequest.ResponseFormat?
    ) throws(OpenAIError) -> (schema: JSONSchema, strict: Bool)? {
        guard let format else { return nil }
        switch format.type {
        case "text":
            return nil
        case "json_object":
            return (JSONSchema.object([:], additionalProperties: true), false)
        case "json_schema":
            guard let definition = format.jsonSchema else {
                throw .invalid(
                    "response_format 'json_schema' needs 'json_schema'",
                    param: "response_format.json_schema"
                )
            }
            do {
                return (try JSONSchema(definition.schema ?? ["type": "object"]), definition.strict ?? false)
            } catch {
                throw OpenAIError(error, param: "response_format.json_schema.schema")
            }
        default:
            throw .invalid(
                "Invalid response_format type '\(format.type)': expected text, json_object or json_schema",
                param: "response_format.type"
            )
        }
    }

    private func generationOptions(_ job: Job) async throws(OpenAIError) -> LLMGenerationOptions {
        let loaded = await state.loadedContextLength(job.model.category)
        return try job.parameters.options(contextLength: loaded ?? LLMLoadConfiguration.defaultContextCap)
    }

    private func structuredOptions(strict: Bool) -> StructuredOutputOptions {
        // Non-strict follows OpenAI's JSON mode: what cannot be enforced is best effort.
        StructuredOutputOptions(strict: strict, bestEffort: !strict)
    }

    private func toolOptions(_ choice: ToolChoice, parallel: Bool) -> ToolCallingOptions {
        // The client runs the tools: one model turn, calls returned as they are.
        var options = ToolCallingOptions(toolChoice: choice, maxIterations: 1, executeTools: false)
        if !parallel { options.maxParallelCalls = 1 }
        return options
    }

    // MARK: Whole responses

    private func complete(_ job: Job) async throws -> JSONValue {
        let options = try await generationOptions(job)
        let sdk = state.sdk
        let message: JSONValue
        let generation: LLMGenerationResult
        var finishReason: String
        switch job.mode {
        case .text:
            generation = try await state.chat(job.messages, on: job.model, options: options)
            message = Self.withReasoning(
                ["role": "assistant", "content": .string(generation.text), "refusal": nil],
                generation
            )
            finishReason = generation.finishReason.openAI
        case .schema(let schema, let strict):
            let result = try await sdk.generateStructured(
                messages: job.messages,
                schema: schema,
                options: options,
                structuredOptions: structuredOptions(strict: strict)
            )
            generation = result.generation
            message = ["role": "assistant", "content": .string(result.text), "refusal": nil]
            finishReason = generation.finishReason.openAI
        case .tools(let tools, let choice, let parallel):
            let result = try await sdk.generateWithTools(
                messages: job.messages,
                tools: tools,
                options: options,
                toolOptions: toolOptions(choice, parallel: parallel)
            )
            generation = result.generation
            finishReason = generation.finishReason.openAI
            var fields: JSONObject = [
                "role": "assistant",
                "content": result.text.isEmpty && !result.toolCalls.isEmpty ? .null : .string(result.text),
                "refusal": nil,
            ]
            if !result.toolCalls.isEmpty {
                fields["tool_calls"] = .array(result.toolCalls.map(Self.toolCallValue))
                // A call the token limit cut was dropped: the reply ended on the limit.
                finishReason = generation.finishReason == .length ? "length" : "tool_calls"
            }
            message = Self.withReasoning(.object(fields), generation)
        }
        record(generation)
        return [
            "id": .string(job.id),
            "object": "chat.completion",
            "created": .integer(Int64(job.created)),
            "model": .string(job.model.id),
            "choices": [
                ["index": 0, "message": message, "logprobs": nil, "finish_reason": .string(finishReason)]
            ],
            "usage": Self.usage(generation),
            "system_fingerprint": nil,
        ]
    }

    /// The message with the model's reasoning as `reasoning_content`, when it wrote some.
    private static func withReasoning(_ message: JSONValue, _ generation: LLMGenerationResult) -> JSONValue {
        guard case .object(var fields) = message, let reasoning = generation.thinkingText, !reasoning.isEmpty else {
            return message
        }
        fields["reasoning_content"] = .string(reasoning)
        return .object(fields)
    }

    private static func toolCallValue(_ call: ToolCall) -> JSONValue {
        [
            "id": .string(call.id),
            "type": "function",
            "function": ["name": .string(call.name), "arguments": .string(call.arguments.jsonText())],
        ]
    }

    static func usage(_ generation: LLMGenerationResult) -> JSONValue {
        [
            "prompt_tokens": .integer(Int64(generation.promptTokens)),
            "completion_tokens": .integer(Int64(generation.generatedTokens)),
            "total_tokens": .integer(Int64(generation.promptTokens + generation.generatedTokens)),
        ]
    }

    private func record(_ generation: LLMGenerationResult) {
        state.metrics.recordTokens(prompt: generation.promptTokens, completion: generation.generatedTokens)
    }

    // MARK: Streams

    private func stream(_ job: Job, options: LLMGenerationOptions, to events: EventStreamWriter) async {
        let chunks = ChunkWriter(job: job, events: events, metrics: state.metrics)
        chunks.send(delta: ["role": "assistant", "content": ""])
        do {
            let generation: LLMGenerationResult
            var finishReason: String?
            switch job.mode {
            case .text:
                var final: LLMGenerationResult?
                for try await event in try await state.chatStream(job.messages, on: job.model, options: options) {
                    switch event {
                    case .token(let text, let isThinking):
                        chunks.send(delta: [isThinking ? "reasoning_content" : "content": .string(text)])
                    case .completed(let result):
                        final = result
                    }
                }
                generation = try Self.required(final)
            case .schema(let schema, let strict):
                var sent = 0
                var final: StructuredOutputResult?
                let stream = try await state.sdk.generateStructuredStream(
                    messages: job.messages,
                    schema: schema,
                    options: options,
                    structuredOptions: structuredOptions(strict: strict)
                )
                for try await event in stream {
                    switch event {
                    case .partial(let text):
                        let utf8 = Array(text.utf8)
                        guard utf8.count > sent else { continue }
                        chunks.send(delta: ["content": .string(String(decoding: utf8[sent...], as: UTF8.self))])
                        sent = utf8.count
                    case .completed(let result):
                        final = result
                    }
                }
                generation = try Self.required(final).generation
            case .tools(let tools, let choice, let parallel):
                var final: ToolCallingResult?
                var calls = ToolCallChunks()
                let stream = try state.sdk.generateWithToolsStream(
                    messages: job.messages,
                    tools: tools,
                    options: options,
                    toolOptions: toolOptions(choice, parallel: parallel)
                )
                for try await event in stream {
                    switch event {
                    case .token(let text):
                        chunks.send(delta: ["content": .string(text)])
                    case .toolCallDelta(let piece):
                        for delta in calls.delta(piece) { chunks.send(delta: delta) }
                    case .toolCall(let call):
                        for delta in calls.call(call) { chunks.send(delta: delta) }
                    case .completed(let result):
                        final = result
                    case .toolCallStarted, .toolResult:
                        continue
                    }
                }
                let result = try Self.required(final)
                generation = result.generation
                if !result.toolCalls.isEmpty, generation.finishReason != .length { finishReason = "tool_calls" }
            }
            record(generation)
            chunks.send(delta: [:], finishReason: finishReason ?? generation.finishReason.openAI)
            if job.includeUsage { chunks.sendUsage(Self.usage(generation)) }
            events.done()
        } catch is CancellationError {
            return
        } catch {
            // Headers are sent: the error becomes the stream's last event, as OpenAI does.
            let failure = OpenAIErrorMiddleware<BasicRequestContext>.openAIError(for: error)
            events.send(["error": failure.errorValue])
        }
    }

    private static func required<T>(_ value: T?) throws -> T {
        guard let value else { throw CancellationError() }
        return value
    }

    /// Writes `chat.completion.chunk` events of one stream.
    private struct ChunkWriter {
        let job: Job
        let events: EventStreamWriter
        let metrics: ServerMetrics
        private let first = FirstToken()

        init(job: Job, events: EventStreamWriter, metrics: ServerMetrics) {
            self.job = job
            self.events = events
            self.metrics = metrics
        }

        func send(delta: JSONObject, finishReason: String? = nil) {
            if first.isFirst(delta) {
                metrics.recordTimeToFirstToken(job.arrival.duration(to: .now))
            }
            var chunk = header
            chunk["choices"] = [
                [
                    "index": 0,
                    "delta": .object(delta),
                    "logprobs": nil,
                    "finish_reason": finishReason.map(JSONValue.string) ?? .null,
                ]
            ]
            if job.includeUsage { chunk["usage"] = .null }
            events.send(.object(chunk))
        }

        func sendUsage(_ usage: JSONValue) {
            var chunk = header
            chunk["choices"] = []
            chunk["usage"] = usage
            events.send(.object(chunk))
        }

        private var header: JSONObject {
            [
                "id": .string(job.id),
                "object": "chat.completion.chunk",
                "created": .integer(Int64(job.created)),
                "model": .string(job.model.id),
                "system_fingerprint": nil,
            ]
        }
    }

    /// Notices the first delta that carries generated text or a call.
    private final class FirstToken: Sendable {
        private let seen = Mutex(false)

        func isFirst(_ delta: JSONObject) -> Bool {
            let carries =
                delta.keys.contains { $0 == "tool_calls" } || (delta["content"]?.stringValue?.isEmpty == false)
            guard carries else { return false }
            return seen.withLock { seen in
                defer { seen = true }
                return !seen
            }
        }
    }
}

extension OpenAIError {
    /// The inner object of the error body.
    var errorValue: JSONValue {
        [
            "message": .string(message),
            "type": .string(type),
            "param": param.map(JSONValue.string) ?? .null,
            "code": code.map(JSONValue.string) ?? .null,
        ]
    }
}
