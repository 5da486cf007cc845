import Foundation
import Hummingbird
import RunAnywhere

/// `POST /v1/completions`: OpenAI's legacy text completion. The prompt goes to the model as
/// it is, without a chat template.
struct CompletionsEndpoint: Sendable {
    let state: ServerState

    struct Body: Decodable, Sendable {
        var model: String
        var prompt: StringOrArray
        var maxTokens: Int?
        var temperature: Double?
        var topP: Double?
        var seed: Int64?
        var stop: StringOrArray?
        var n: Int?
        var stream: Bool?
        var streamOptions: ChatCompletionRequest.StreamOptions?
        var echo: Bool?
        var suffix: String?

        enum CodingKeys: String, CodingKey {
            case model, prompt, temperature, seed, stop, n, stream, echo, suffix
            case maxTokens = "max_tokens"
            case topP = "top_p"
            case streamOptions = "stream_options"
        }
    }

    /// OpenAI's default for this endpoint.
    static let defaultMaxTokens = 16

    func handle(_ request: Request) async throws -> Response {
        let body = try await state.decode(Body.self, from: request)
        let model = try state.host.model(body.model, for: .llm)
        // A string, or an array holding one string.
        guard body.prompt.values.count == 1 else {
            throw OpenAIError.invalid("Only one prompt per request is supported", param: "prompt")
        }
        let prompt = body.prompt.values[0]
        guard body.suffix == nil else { throw OpenAIError.invalid("'suffix' is not supported", param: "suffix") }
        let parameters = GenerationParameters(
            maxTokens: body.maxTokens ?? Self.defaultMaxTokens,
            maxTokensParam: "max_tokens",
            temperature: body.temperature,
            topP: body.topP,
            seed: body.seed,
            stop: body.stop?.values ?? [],
            n: body.n
        )
        _ = try parameters.options(contextLength: Int.max)
        let id = "cmpl-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let created = Int64(Date().timeIntervalSince1970)
        let echo = body.echo == true ? prompt : ""

        func options() async throws -> LLMGenerationOptions {
            let contextLength = await state.sdk.currentLLMContextLength ?? LLMLoadConfiguration.defaultContextCap
            var options = try parameters.options(contextLength: contextLength)
            options.applyChatTemplate = false
            return options
        }
        @Sendable func chunk(_ text: String, finishReason: String?) -> JSONValue {
            [
                "id": .string(id),
                "object": "text_completion",
                "created": .integer(created),
                "model": .string(model.id),
                "choices": [
                    [
                        "text": .string(text),
                        "index": 0,
                        "logprobs": .null,
                        "finish_reason": finishReason.map(JSONValue.string) ?? .null,
                    ]
                ],
            ]
        }

        guard body.stream == true else {
            return try await state.withModel(model) {
                let result = try await state.sdk.generate(prompt, options: try await options())
                state.metrics.recordTokens(prompt: result.promptTokens, completion: result.generatedTokens)
                guard case .object(var object) = chunk(echo + result.text, finishReason: result.finishReason.openAI)
                else { return Response.json(.null) }
                object["usage"] = ChatCompletionsEndpoint.usage(result)
                return Response.json(.object(object))
            }
        }
        let lease = try await state.holdModel(model)
        let generationOptions: LLMGenerationOptions
        do {
            generationOptions = try await options()
        } catch {
            await lease.release()
            throw error
        }
        let includeUsage = body.streamOptions?.includeUsage ?? false
        let sdk = state.sdk
        let metrics = state.metrics
        return .eventStream { events in
            do {
                if !echo.isEmpty { events.send(chunk(echo, finishReason: nil)) }
                var final: LLMGenerationResult?
                for try await event in try await sdk.generateStream(prompt, options: generationOptions) {
                    switch event {
                    case .token(let text, _): events.send(chunk(text, finishReason: nil))
                    case .completed(let result): final = result
                    }
                }
                if let final {
                    metrics.recordTokens(prompt: final.promptTokens, completion: final.generatedTokens)
                    events.send(chunk("", finishReason: final.finishReason.openAI))
                    if includeUsage, case .object(var object) = chunk("", finishReason: nil) {
                        object["choices"] = []
                        object["usage"] = ChatCompletionsEndpoint.usage(final)
                        events.send(.object(object))
                    }
                    events.done()
                }
            } catch {
                let failure = OpenAIErrorMiddleware<BasicRequestContext>.openAIError(for: error)
                events.send(["error": failure.errorValue])
            }
            await lease.release()
        }
    }
}
