import AsyncHTTPClient
import Foundation
import NIOCore
@_spi(Backend) import RunAnywhere
import Synchronization

/// A language model on an OpenAI-compatible server.
///
/// Conversations go to `/chat/completions` as turns (the server applies its own chat
/// template), raw prompts to `/completions`. Every request streams, so tokens reach the
/// caller as the server sends them and cancelling closes the connection. Structured output
/// goes as `response_format` with the JSON Schema, tools as `tools`; a GBNF grammar alone
/// cannot be sent and fails the request rather than generating unconstrained. Top-k and the
/// repetition penalty are not OpenAI fields and are not sent: the server's own apply.
final class RemoteLLMService: LLMService {
    let model: ModelInfo
    let contextLength: Int
    private let http: RemoteHTTPClient
    /// Whether the server takes a schema only as `{"type": "json_object", "schema": …}`
    /// (llama.cpp's servers): learned from its refusal of `json_schema`, then kept.
    private let schemaAsJSONObject = Mutex(false)

    private init(model: ModelInfo, contextLength: Int, http: RemoteHTTPClient) {
        self.model = model
        self.contextLength = contextLength
        self.http = http
    }

    /// Connects to the model's server and checks that it serves the model.
    ///
    /// - Throws: `.remoteNotFound` naming the models the server does serve, and the
    ///   errors of ``RemoteHTTPClient``.
    static func load(_ model: ModelInfo, configuration: LLMLoadConfiguration) async throws -> RemoteLLMService {
        try await RemoteHTTPClient.loading(model) { http, listed in
            let context = configuration.contextLength ?? listed?.contextLength ?? model.contextLength ?? 4096
            return RemoteLLMService(model: model, contextLength: context, http: http)
        }
    }

    func unload() async {
        await http.shutdown()
    }

    /// A ChatML rendering, for token estimates only: the server applies the real template.
    func formatChat(_ messages: [ChatMessage], addAssistantTurn: Bool) async throws -> String {
        var text = messages.map { "<|im_start|>\($0.role.rawValue)\n\($0.content)<|im_end|>\n" }.joined()
        if addAssistantTurn { text += "<|im_start|>assistant\n" }
        return text
    }

    /// An estimate (four bytes a token): the OpenAI API has no tokenizer endpoint.
    func tokenCount(_ text: String) async throws -> Int {
        RemoteTokenEstimate.count(text)
    }

    func generate(
        _ request: LLMServiceRequest,
        onToken: @escaping @Sendable ([UInt8]) -> TokenDisposition
    ) async throws -> LLMServiceResult {
        let chat = request.messages != nil
        let response = try await openStream(request, path: chat ? "chat/completions" : "completions")
        var stream = RemoteCompletionStream(chat: chat)
        var stop: LLMServiceResult.StopReason?
        let contentType = response.headers.first(name: "Content-Type")?.lowercased() ?? ""
        if contentType.contains("text/event-stream") {
            stop = try await readEvents(response, into: &stream, cancellation: request.cancellation, onToken: onToken)
        } else {
            // A server that ignores `stream` answers with the whole completion (or an error page).
            let json = try http.parse(try await http.readBody(response), what: "completion")
            if let text = try stream.consumeWhole(json), onToken(Array(text.utf8)) == .stop { stop = .callback }
        }
        if stop == nil, request.cancellation.isCancelled { stop = .cancelled }
        guard stop != nil || stream.isDone || stream.finishReason != nil else {
            throw SDKException(
                .remoteUnreachable,
                "The stream from \(http.endpoint.baseURL.host ?? "the server") ended before the generation did",
                recovery: "The server may have stopped; retry, or run the model on this device"
            )
        }
        return LLMServiceResult(
            promptTokens: stream.promptTokens ?? RemoteTokenEstimate.count(request.prompt),
            generatedTokens: stream.completionTokens ?? stream.pieces,
            stopReason: stop ?? (stream.finishReason == "length" ? .maxTokens : .endOfSequence),
            toolCalls: try stream.toolCalls()
        )
    }

    /// Reads a server-sent-events body into `stream`, handing each text piece to `onToken`.
    ///
    /// - Returns: Why reading stopped early (cancelled, or `onToken` said stop), `nil` at the end.
    private func readEvents(
        _ response: HTTPClientResponse,
        into stream: inout RemoteCompletionStream,
        cancellation: CancellationFlag,
        onToken: @Sendable ([UInt8]) -> TokenDisposition
    ) async throws(SDKException) -> LLMServiceResult.StopReason? {
        var parser = ServerSentEvents()
        var stop: LLMServiceResult.StopReason?
        do {
            for try await buffer in response.body {
                // After the end (`[DONE]`) or an early stop the rest of the body is read and
                // dropped: a connection left half-read is neither reused nor closed, and
                // llama-cpp-python's server waits on it before it takes the next request.
                guard stop == nil, !stream.isDone else { continue }
                for event in try parser.consume(buffer.readableBytesView) where stop == nil && !stream.isDone {
                    if cancellation.isCancelled {
                        stop = .cancelled
                    } else if let text = try stream.consume(event, http: http), onToken(Array(text.utf8)) == .stop {
                        stop = .callback
                    }
                }
                if stop != nil { break }
            }
        } catch let error as SDKException {
            throw error
        } catch {
            throw http.transportError(error).cutOff(from: http.endpoint)
        }
        if stop == nil, !stream.isDone, let last = parser.finish(), let text = try stream.consume(last, http: http) {
            if onToken(Array(text.utf8)) == .stop { return .callback }
        }
        return stop
    }

    /// Sends the request; a server that refuses `json_schema` gets the schema again as
    /// llama.cpp's servers take it.
    private func openStream(_ request: LLMServiceRequest, path: String) async throws(SDKException) -> HTTPClientResponse
    {
        let name = http.endpoint.remoteModelName
        let legacy = schemaAsJSONObject.withLock { $0 }
        do {
            return try await http.open(http.request(path, json: Self.body(request, model: name, legacySchema: legacy)))
        } catch {
            guard request.responseSchema != nil, !legacy, Self.refusesJSONSchema(error) else { throw error }
            schemaAsJSONObject.withLock { $0 = true }
            return try await http.open(http.request(path, json: Self.body(request, model: name, legacySchema: true)))
        }
    }

    /// Whether a refusal is about the `json_schema` response format (llama-cpp-python knows
    /// only `text` and `json_object`, and says so).
    private static func refusesJSONSchema(_ error: SDKException) -> Bool {
        [.remoteRejected, .remoteServerError].contains(error.code) && error.message.contains("json_object")
    }

    /// The request body: the OpenAI fields the SDK's options map to.
    private static func body(
        _ request: LLMServiceRequest,
        model: String,
        legacySchema: Bool
    ) throws(SDKException) -> JSONValue {
        if request.grammar != nil, request.responseSchema == nil {
            throw SDKException(
                .backendError,
                "A remote server cannot apply a GBNF grammar",
                recovery: "Use structured output with a JSON Schema (generateStructured), which goes as response_format"
            )
        }
        if !request.images.isEmpty {
            throw SDKException(.invalidInput, "Remote models take no images here")
        }
        if let adapters = request.loraAdapters, !adapters.isEmpty {
            throw SDKException(.backendError, "A remote server cannot apply this device's LoRA adapters")
        }
        var body: JSONObject = ["model": .string(model)]
        if let messages = request.messages {
            body["messages"] = .array(messages.map(Self.message))
        } else {
            body["prompt"] = .string(request.prompt)
        }
        body["max_tokens"] = .integer(Int64(request.maxTokens))
        body["temperature"] = .number(Double(request.sampling.temperature))
        body["top_p"] = .number(Double(request.sampling.topP))
        if let seed = request.sampling.seed { body["seed"] = .integer(Int64(seed)) }
        body["stream"] = true
        body["stream_options"] = ["include_usage": true]
        if let schema = request.responseSchema {
            body["response_format"] =
                legacySchema
                ? ["type": "json_object", "schema": schema.value]
                : ["type": "json_schema", "json_schema": ["name": "response", "schema": schema.value, "strict": true]]
        }
        if !request.tools.isEmpty {
            body["tools"] = .array(request.tools.map(\.openAIValue))
            switch request.toolChoice ?? .auto {
            case .auto: body["tool_choice"] = "auto"
            case .none: body["tool_choice"] = "none"
            case .required: body["tool_choice"] = "required"
            case .tool(let name): body["tool_choice"] = ["type": "function", "function": ["name": .string(name)]]
            }
        }
        return .object(body)
    }

    /// A turn as an OpenAI message.
    private static func message(_ message: ChatMessage) -> JSONValue {
        var object: JSONObject = ["role": .string(message.role.rawValue), "content": .string(message.content)]
        if let calls = message.toolCalls, !calls.isEmpty {
            object["tool_calls"] = .array(
                calls.map { call in
                    [
                        "id": .string(call.id),
                        "type": "function",
                        "function": ["name": .string(call.name), "arguments": .string(call.arguments.jsonText())],
                    ]
                }
            )
        }
        if let id = message.toolCallId { object["tool_call_id"] = .string(id) }
        return .object(object)
    }
}

/// Token counts where the server reports none: about four bytes a token, as for English
/// text with the common BPE vocabularies.
enum RemoteTokenEstimate {
    static func count(_ text: String) -> Int {
        (text.utf8.count + 3) / 4
    }
}

extension SDKException {
    /// A transport failure in the middle of a stream: the server went away.
    func cutOff(from endpoint: RemoteEndpoint) -> SDKException {
        guard code == .remoteUnreachable else { return self }
        return SDKException(
            .remoteUnreachable,
            "The stream from \(endpoint.baseURL.host ?? "the server") was cut off: \(message)",
            recovery: "The server may have stopped; retry, or run the model on this device"
        )
    }
}
