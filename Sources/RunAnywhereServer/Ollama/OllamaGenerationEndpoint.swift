import Foundation
import Hummingbird
import RunAnywhere

/// Ollama's `POST /api/chat` and `POST /api/generate`: text, `format` (JSON or a schema),
/// `tools` and `think`, and `images` for a vision-language model, streamed as
/// newline-delimited JSON unless `stream` is false.
struct OllamaGenerationEndpoint: Sendable {
    let state: ServerState

    struct ChatBody: Decodable, Sendable {
        var model: String
        var messages: [JSONValue]?
        var tools: [JSONValue]?
        var format: JSONValue?
        var options: JSONValue?
        var stream: Bool?
        var keepAlive: JSONValue?
        var think: JSONValue?

        enum CodingKeys: String, CodingKey {
            case model, messages, tools, format, options, stream, think
            case keepAlive = "keep_alive"
        }
    }

    struct GenerateBody: Decodable, Sendable {
        var model: String
        var prompt: String?
        var suffix: String?
        var system: String?
        var template: String?
        var raw: Bool?
        var images: [String]?
        var format: JSONValue?
        var options: JSONValue?
        var stream: Bool?
        var keepAlive: JSONValue?
        var think: JSONValue?

        enum CodingKeys: String, CodingKey {
            case model, prompt, suffix, system, template, raw, images, format, options, stream, think
            case keepAlive = "keep_alive"
        }
    }

    /// One request, checked.
    private struct Job: Sendable {
        let name: String
        let model: ModelInfo
        let messages: [ChatMessage]
        /// `/api/generate` with `raw`: the prompt as it is, no template.
        let rawPrompt: String?
        let schema: JSONSchema?
        let tools: [ToolDefinition]
        let reasoning: ReasoningMode?
        let options: JSONValue?
        let keepAlive: ModelHost.KeepAlive?
        let stream: Bool
        /// `/api/chat`'s shape (`message`), else `/api/generate`'s (`response`).
        let chat: Bool
    }

    func chat(_ request: Request) async throws -> Response {
        let body = try await state.decode(ChatBody.self, from: request)
        let model = try state.host.model(Ollama.modelId(body.model), forAnyOf: [.llm, .vision])
        var tools: [ToolDefinition] = []
        for (index, value) in (body.tools ?? []).enumerated() {
            do {
                tools.append(try ToolDefinition(openAI: value))
            } catch {
                throw OpenAIError(error, param: "tools[\(index)]")
            }
        }
        let keepAlive = try Ollama.keepAlive(body.keepAlive)
        let messages = try Self.conversation(body.messages ?? [])
        try ChatCompletionsEndpoint.checkImages(messages, for: model) { "messages[\($0)].images" }
        try Self.checkVision(model, tools: !tools.isEmpty, format: body.format, raw: false)
        guard !messages.isEmpty else { return try await loadOnly(body.model, model, keepAlive, chat: true) }
        let job = Job(
            name: body.model,
            model: model,
            messages: messages,
            rawPrompt: nil,
            schema: try Ollama.schema(body.format),
            tools: tools,
            reasoning: try Ollama.reasoning(body.think),
            options: body.options,
            keepAlive: keepAlive,
            stream: body.stream ?? true,
            chat: true
        )
        return try await run(job)
    }

    func generate(_ request: Request) async throws -> Response {
        let body = try await state.decode(GenerateBody.self, from: request)
        let model = try state.host.model(Ollama.modelId(body.model), forAnyOf: [.llm, .vision])
        if let suffix = body.suffix, !suffix.isEmpty {
            throw OpenAIError.invalid("\(body.model) does not support insert (suffix)", param: "suffix")
        }
        if let template = body.template, !template.isEmpty {
            throw OpenAIError.invalid(
                "A template per request is not supported; the model's own is used",
                param: "template"
            )
        }
        try Self.checkVision(model, tools: false, format: body.format, raw: body.raw == true)
        let keepAlive = try Ollama.keepAlive(body.keepAlive)
        let prompt = body.prompt ?? ""
        guard !prompt.isEmpty else { return try await loadOnly(body.model, model, keepAlive, chat: false) }
        var messages: [ChatMessage] = []
        if let system = body.system, !system.isEmpty { messages.append(.system(system)) }
        let images = try Self.images(body.images ?? [], param: "images")
        messages.append(ChatMessage(role: .user, content: prompt, images: images.isEmpty ? nil : images))
        try ChatCompletionsEndpoint.checkImages(messages, for: model) { _ in "images" }
        let job = Job(
            name: body.model,
            model: model,
            messages: messages,
            rawPrompt: body.raw == true ? prompt : nil,
            schema: try Ollama.schema(body.format),
            tools: [],
            reasoning: try Ollama.reasoning(body.think),
            options: body.options,
            keepAlive: keepAlive,
            stream: body.stream ?? true,
            chat: false
        )
        return try await run(job)
    }

    /// A vision-language model answers text and images; tools, formats and raw prompts run on
    /// language models.
    private static func checkVision(_ model: ModelInfo, tools: Bool, format: JSONValue?, raw: Bool) throws(OpenAIError)
    {
        guard model.category == .vision else { return }
        let param: String? =
            if tools { "tools" } else if format != nil && format != .null { "format" } else if raw { "raw" } else {
                nil
            }
        guard let param else { return }
        throw .invalid(
            "Tools, formats and raw prompts run on language models here; '\(model.id)' is a vision-language model",
            param: param,
            code: "model_not_supported"
        )
    }

    /// Ollama's `images`: base64 PNG or JPEG files.
    private static func images(_ values: [String], param: String) throws(OpenAIError) -> [VLMImage] {
        var images: [VLMImage] = []
        for (index, text) in values.enumerated() {
            do {
                images.append(try VLMImage(base64: text))
            } catch {
                throw OpenAIError(error, param: "\(param)[\(index)]")
            }
        }
        return images
    }

    /// An empty request: load the model (Ollama's way to preload), or with `keep_alive: 0`
    /// unload it.
    private func loadOnly(
        _ name: String,
        _ model: ModelInfo,
        _ keepAlive: ModelHost.KeepAlive?,
        chat: Bool
    ) async throws -> Response {
        var reason = "load"
        if keepAlive == .duration(.zero) {
            await state.host.unloadIfIdle(model.category)
            reason = "unload"
        } else {
            if let keepAlive { await state.host.setKeepAlive(keepAlive, for: model.category) }
            try await state.withModel(model) {}
        }
        var value: JSONObject = ["model": .string(name), "created_at": .string(Ollama.timestamp())]
        if chat {
            value["message"] = ["role": "assistant", "content": ""]
        } else {
            value["response"] = ""
        }
        value["done"] = true
        value["done_reason"] = .string(reason)
        return .json(.object(value))
    }

    private func run(_ job: Job) async throws -> Response {
        let category = job.model.category
        if let keepAlive = job.keepAlive { await state.host.setKeepAlive(keepAlive, for: category) }
        let arrival = ContinuousClock.now
        guard job.stream else {
            let value = try await state.withModel(job.model) {
                let loadMs = arrival.duration(to: .now).milliseconds
                return try await complete(job, options: try await self.options(job), loadMs: loadMs)
            }
            if job.keepAlive == .duration(.zero) { await state.host.unloadIfIdle(category) }
            return .json(value)
        }
        let lease = try await state.holdModel(job.model)
        let loadMs = arrival.duration(to: .now).milliseconds
        let options: LLMGenerationOptions
        do {
            options = try await self.options(job)
        } catch {
            await lease.release()
            throw error
        }
        return .lineStream { lines in
            await stream(job, options: options, loadMs: loadMs, to: lines)
            await lease.release()
            if job.keepAlive == .duration(.zero) { await state.host.unloadIfIdle(category) }
        }
    }

    private func options(_ job: Job) async throws(OpenAIError) -> LLMGenerationOptions {
        let loaded = await state.loadedContextLength(job.model.category)
        var options = try Ollama.options(job.options, contextLength: loaded ?? LLMLoadConfiguration.defaultContextCap)
        options.reasoning = job.reasoning
        if job.rawPrompt != nil { options.applyChatTemplate = false }
        return options
    }

    /// A whole answer: its text (or calls), then the statistics.
    private func complete(_ job: Job, options: LLMGenerationOptions, loadMs: Double) async throws -> JSONValue {
        let (text, calls, generation) = try await answer(job, options: options)
        state.metrics.recordTokens(prompt: generation.promptTokens, completion: generation.generatedTokens)
        return final(job, text: text, thinking: generation.thinkingText, calls: calls, generation, loadMs: loadMs)
    }

    /// The generation for a job that is not streamed token by token.
    private func answer(
        _ job: Job,
        options: LLMGenerationOptions
    ) async throws -> (String, [ToolCall], LLMGenerationResult) {
        let sdk = state.sdk
        if !job.tools.isEmpty {
            let result = try await sdk.generateWithTools(
                messages: job.messages,
                tools: job.tools,
                options: options,
                toolOptions: ToolCallingOptions(toolChoice: .auto, maxIterations: 1, executeTools: false)
            )
            return (result.text, result.toolCalls, result.generation)
        }
        if let schema = job.schema {
            let result = try await sdk.generateStructured(
                messages: job.messages,
                schema: schema,
                options: options,
                structuredOptions: StructuredOutputOptions(bestEffort: true)
            )
            return (result.text, [], result.generation)
        }
        let generation =
            if let raw = job.rawPrompt {
                try await sdk.generate(raw, options: options)
            } else {
                try await state.chat(job.messages, on: job.model, options: options)
            }
        return (generation.text, [], generation)
    }

    /// Streams text token by token (reasoning as `thinking`); JSON and tool answers come whole
    /// in one line before the last. A failure after the first line ends the stream with
    /// Ollama's `{"error": …}` line.
    private func stream(
        _ job: Job,
        options: LLMGenerationOptions,
        loadMs: Double,
        to lines: EventStreamWriter
    ) async {
        do {
            let generation: LLMGenerationResult
            if job.schema != nil || !job.tools.isEmpty {
                let (text, calls, result) = try await answer(job, options: options)
                lines.line(piece(job, text: text, thinking: nil, calls: calls))
                generation = result
            } else {
                let events =
                    if let raw = job.rawPrompt {
                        try await state.sdk.generateStream(raw, options: options)
                    } else {
                        try await state.chatStream(job.messages, on: job.model, options: options)
                    }
                var final: LLMGenerationResult?
                for try await event in events {
                    switch event {
                    case .token(let text, let isThinking):
                        lines.line(
                            piece(job, text: isThinking ? "" : text, thinking: isThinking ? text : nil, calls: [])
                        )
                    case .completed(let result):
                        final = result
                    }
                }
                guard let final else { throw SDKException(.generationFailed, "The generation ended without a result") }
                generation = final
            }
            state.metrics.recordTokens(prompt: generation.promptTokens, completion: generation.generatedTokens)
            lines.line(final(job, text: "", thinking: nil, calls: [], generation, loadMs: loadMs))
        } catch {
            let failure =
                (error as? OpenAIError)
                ?? OpenAIError(SDKException.wrap(error, as: .generationFailed, "Generation failed"))
            lines.line(["error": .string(failure.message)])
        }
    }

    /// One streamed piece.
    private func piece(_ job: Job, text: String, thinking: String?, calls: [ToolCall]) -> JSONValue {
        var value: JSONObject = ["model": .string(job.name), "created_at": .string(Ollama.timestamp())]
        if job.chat {
            value["message"] = Self.message(text: text, thinking: thinking, calls: calls)
        } else {
            value["response"] = .string(text)
            if let thinking { value["thinking"] = .string(thinking) }
        }
        value["done"] = false
        return .object(value)
    }

    /// The last line (or the whole answer): the text unless streamed, and the statistics.
    private func final(
        _ job: Job,
        text: String,
        thinking: String?,
        calls: [ToolCall],
        _ generation: LLMGenerationResult,
        loadMs: Double
    ) -> JSONValue {
        var value: JSONObject = ["model": .string(job.name), "created_at": .string(Ollama.timestamp())]
        if job.chat {
            value["message"] = Self.message(text: text, thinking: thinking, calls: calls)
        } else {
            value["response"] = .string(text)
            if let thinking, !thinking.isEmpty { value["thinking"] = .string(thinking) }
            value["context"] = []
        }
        value["done"] = true
        for (key, statistic) in Ollama.statistics(generation, loadMs: loadMs) { value[key] = statistic }
        return .object(value)
    }

    /// An assistant message as Ollama writes it: calls with their arguments as objects.
    private static func message(text: String, thinking: String?, calls: [ToolCall]) -> JSONValue {
        var message: JSONObject = ["role": "assistant", "content": .string(text)]
        if let thinking, !thinking.isEmpty { message["thinking"] = .string(thinking) }
        if !calls.isEmpty {
            message["tool_calls"] = .array(
                calls.map { call in ["function": ["name": .string(call.name), "arguments": call.arguments]] }
            )
        }
        return .object(message)
    }

    /// Ollama's messages as the SDK's: calls get ids, and each `tool` message answers the
    /// earliest unanswered call of its `tool_name` (or the earliest of any).
    static func conversation(_ values: [JSONValue]) throws(OpenAIError) -> [ChatMessage] {
        var pending: [ToolCall] = []
        var result: [ChatMessage] = []
        for (index, value) in values.enumerated() {
            let param = "messages[\(index)]"
            guard case .object(let fields) = value, let role = fields["role"]?.stringValue else {
                throw .invalid("\(param) needs a 'role'", param: param)
            }
            let content: String
            switch fields["content"] {
            case .none, .null: content = ""
            case .string(let text): content = text
            default: throw .invalid("\(param).content must be a string", param: "\(param).content")
            }
            var images: [VLMImage] = []
            if let values = fields["images"]?.arrayValue, !values.isEmpty {
                guard role == "user" else {
                    throw .invalid("Only a user message may carry images", param: "\(param).images")
                }
                let texts = values.compactMap(\.stringValue)
                guard texts.count == values.count else {
                    throw .invalid("\(param).images must be base64 strings", param: "\(param).images")
                }
                images = try Self.images(texts, param: "\(param).images")
            }
            switch role {
            case "system": result.append(.system(content))
            case "user":
                result.append(ChatMessage(role: .user, content: content, images: images.isEmpty ? nil : images))
            case "assistant":
                var calls: [ToolCall] = []
                for (number, call) in (fields["tool_calls"]?.arrayValue ?? []).enumerated() {
                    guard let name = call["function"]?["name"]?.stringValue else {
                        throw .invalid(
                            "\(param).tool_calls[\(number)] needs a function name",
                            param: "\(param).tool_calls"
                        )
                    }
                    let arguments = call["function"]?["arguments"] ?? .object([:])
                    calls.append(ToolCall(id: "call_\(index)_\(number)", name: name, arguments: arguments))
                }
                pending += calls
                result.append(ChatMessage(role: .assistant, content: content, toolCalls: calls.isEmpty ? nil : calls))
            case "tool":
                let name = fields["tool_name"]?.stringValue ?? fields["name"]?.stringValue
                let answered = pending.firstIndex { $0.name == name } ?? pending.indices.first
                let id = answered.map { pending.remove(at: $0).id } ?? "call_\(index)"
                result.append(ChatMessage(role: .tool, content: content, toolCallId: id))
            default:
                throw .invalid(
                    "\(param).role must be system, user, assistant or tool (got '\(role)')",
                    param: "\(param).role"
                )
            }
        }
        return result
    }
}
