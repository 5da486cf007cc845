import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import RunAnywhere
import RunAnywhereHTTPServing
import Synchronization

/// An OpenAI-compatible HTTP server over a `RunAnywhereSDK` instance.
///
/// Any OpenAI client works against it unchanged: chat completions (streamed as server-sent
/// events, with JSON-schema output and tool calls), legacy completions, embeddings, audio
/// transcriptions and speech, and the model list, plus `/health`, Prometheus `/metrics` and
/// its own OpenAPI document at `/openapi.json`. Models load on first use. Concurrent chat
/// requests share the engine through the language model's slots (continuous batching).
///
/// ```swift
/// let sdk = try RunAnywhereSDK(home: URL(fileURLWithPath: "/var/lib/myapp/runanywhere"), modules: [LlamaCPPModule()])
/// let server = try await OpenAIServer.start(
///     sdk: sdk,
///     configuration: OpenAIServerConfiguration(port: 8080, apiKey: "secret")
/// )
/// print("Serving on", server.baseURL)
/// // curl -H 'Authorization: Bearer secret' \(server.baseURL)v1/models
/// await server.stop()
/// ```
public final class OpenAIServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// The address the server listens on.
    public let host: String
    /// The routes the server answers, as `METHOD /path` (`GET /v1/models/{model}`), in a stable
    /// order. Every route under `/v1` needs the key when the server has one.
    public let routes: [String]
    private let run: HTTPServerRun
    private let state: ServerState

    private init(host: String, routes: [String], run: HTTPServerRun, state: ServerState) {
        self.host = host
        self.port = run.port
        self.routes = routes
        self.run = run
        self.state = state
    }

    /// The server's root URL, e.g. `http://127.0.0.1:8080/`; the OpenAI base URL is this plus `v1`.
    public var baseURL: URL { URL(string: "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/")! }

    /// The models the server offers: those the configuration names, or every registered model
    /// of a kind it serves (language, embedding, speech-to-text, text-to-speech).
    public var offeredModels: [ModelInfo] { state.host.offeredModels() }

    /// Ids of the models loaded now.
    public var loadedModels: [String] { get async { await state.host.loadedModelIds } }

    /// Starts serving; returns once the port is bound (and, with `preload`, the models are loaded).
    ///
    /// - Throws: `.invalidConfiguration` for a bad configuration or a port that cannot be
    ///   bound; the preload's errors.
    public static func start(
        sdk: RunAnywhereSDK,
        configuration: OpenAIServerConfiguration = OpenAIServerConfiguration(),
        logger: Logger = Logger(label: "runanywhere.server")
    ) async throws -> OpenAIServer {
        let (router, state) = try await prepare(sdk: sdk, configuration: configuration, logger: logger)
        guard
            let run = await HTTPServerRun.start(
                router.buildResponder(),
                host: configuration.host,
                port: configuration.port,
                logger: logger
            )
        else {
            throw SDKException(
                .invalidConfiguration,
                "Could not listen on \(configuration.host):\(configuration.port)",
                recovery: "Is the port in use? Pick another with --port, or 0 for any free port"
            )
        }
        let routes = router.routes.map { "\($0.method) \($0.path)" }.sorted()
        return OpenAIServer(host: configuration.host, routes: routes, run: run, state: state)
    }

    /// The server's routes and middleware over `sdk`, with no socket: what ``start(sdk:configuration:logger:)``
    /// serves, for tests that send requests in process (HummingbirdTesting's `.router`).
    ///
    /// - Throws: as ``start(sdk:configuration:logger:)`` does before it binds the port.
    package static func router(
        sdk: RunAnywhereSDK,
        configuration: OpenAIServerConfiguration = OpenAIServerConfiguration(),
        logger: Logger = Logger(label: "runanywhere.server")
    ) async throws -> Router<BasicRequestContext> {
        try await prepare(sdk: sdk, configuration: configuration, logger: logger).router
    }

    private static func prepare(
        sdk: RunAnywhereSDK,
        configuration: OpenAIServerConfiguration,
        logger: Logger
    ) async throws -> (router: Router<BasicRequestContext>, state: ServerState) {
        try validate(configuration)
        if let warning = configuration.exposureWarning { logger.warning("\(warning)") }
        let state = ServerState(sdk: sdk, configuration: configuration, logger: logger)
        if configuration.preload {
            do {
                try await state.host.preload()
            } catch {
                throw SDKException(.modelLoadFailed, "Preloading failed: \(error.message)")
            }
        }
        let router = Router()
        router.add(middleware: RequestLogMiddleware(metrics: state.metrics, logger: logger))
        router.add(middleware: OpenAIErrorMiddleware())
        if let origin = configuration.corsOrigin {
            router.add(
                middleware: CORSMiddleware(
                    allowOrigin: origin == "*" ? .all : .oneOf(origin),
                    allowHeaders: [.contentType, .authorization],
                    allowMethods: [.get, .post, .options]
                )
            )
        }
        ServerRoutes(state: state).register(on: router)

        return (router, state)
    }

    /// Stops accepting connections, lets requests in progress finish for up to `gracePeriod`,
    /// then cancels the rest (their generations stop; their clients see the connection close).
    /// The SDK instance stays usable.
    public func stop(gracePeriod: Duration = .seconds(10)) async {
        await run.stop(gracePeriod: gracePeriod)
    }

    private static func validate(_ configuration: OpenAIServerConfiguration) throws(SDKException) {
        func bad(_ message: String) -> SDKException { SDKException(.invalidConfiguration, message) }
        guard (0...65535).contains(configuration.port) else { throw bad("port must be in 0…65535") }
        guard (1...LLMLoadConfiguration.maximumSlots).contains(configuration.slots) else {
            throw bad("slots must be in 1…\(LLMLoadConfiguration.maximumSlots)")
        }
        guard configuration.queueSize >= 0 else { throw bad("queueSize must not be negative") }
        guard configuration.maxBodyBytes >= 1024, configuration.maxAudioBytes >= 1024 else {
            throw bad("body limits must be at least 1 KiB")
        }
        guard configuration.maxSpeechCharacters >= 1 else { throw bad("maxSpeechCharacters must be at least 1") }
        if let key = configuration.apiKey, key.isEmpty { throw bad("the API key must not be empty") }
        if let context = configuration.contextLength, context < 16 { throw bad("contextLength must be at least 16") }
    }
}

/// What every route shares.
final class ServerState: Sendable {
    let sdk: RunAnywhereSDK
    let configuration: OpenAIServerConfiguration
    let host: ModelHost
    let metrics = ServerMetrics()
    let logger: Logger

    init(sdk: RunAnywhereSDK, configuration: OpenAIServerConfiguration, logger: Logger) {
        self.sdk = sdk
        self.configuration = configuration
        self.host = ModelHost(sdk: sdk, configuration: configuration)
        self.logger = logger
    }

    /// Decodes a JSON body no larger than the configured limit.
    func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        let buffer = try await body(of: request, limit: configuration.maxBodyBytes)
        guard buffer.readableBytes > 0 else {
            throw OpenAIError.invalid("The request body is empty; send a JSON object", code: "invalid_json")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            throw OpenAIError(decoding: error)
        }
    }

    /// The request's body, refused with 413 past `limit` (at once when Content-Length says so).
    func body(of request: Request, limit: Int) async throws -> ByteBuffer {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw OpenAIError(
                .contentTooLarge,
                "The request body has \(length) bytes; the limit is \(limit)",
                code: "request_too_large"
            )
        }
        do {
            return try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw OpenAIError(.contentTooLarge, "The request body is over \(limit) bytes", code: "request_too_large")
        }
    }

    /// The context size of the loaded model of `category`: language and vision-language
    /// models have one; `nil` for other kinds or when none is loaded.
    func loadedContextLength(_ category: ModelCategory) async -> Int? {
        switch category {
        case .llm: await sdk.currentLLMContextLength
        case .vision: await sdk.currentVLMContextLength
        default: nil
        }
    }

    /// The next assistant turn on `model`'s capability: the vision-language model for a VLM
    /// (images or not), else the language model.
    func chat(
        _ messages: [ChatMessage],
        on model: ModelInfo,
        options: LLMGenerationOptions
    ) async throws -> LLMGenerationResult {
        model.category == .vision
            ? try await sdk.visionChat(messages, options: options) : try await sdk.chat(messages, options: options)
    }

    /// ``chat(_:on:options:)`` streamed token by token.
    func chatStream(
        _ messages: [ChatMessage],
        on model: ModelInfo,
        options: LLMGenerationOptions
    ) async throws -> AsyncThrowingStream<LLMStreamEvent, any Error> {
        model.category == .vision
            ? try await sdk.visionChatStream(messages, options: options)
            : try await sdk.chatStream(messages, options: options)
    }

    /// Runs `body` while holding `model` (loaded, admitted against the kind's capacity).
    func withModel<T: Sendable>(_ model: ModelInfo, _ body: () async throws -> T) async throws -> T {
        try await host.acquire(model)
        await updateGauges(model.category)
        do {
            let result = try await body()
            await release(model.category)
            return result
        } catch {
            await release(model.category)
            throw error
        }
    }

    /// Acquires `model` for a response that outlives the handler (a stream). The lease is
    /// released when the stream calls ``ModelLease/release()``, or when the response is dropped
    /// without its body ever being written (a client gone before the headers went out).
    func holdModel(_ model: ModelInfo) async throws -> ModelLease {
        try await host.acquire(model)
        await updateGauges(model.category)
        return ModelLease { [self] in await release(model.category) }
    }

    fileprivate func release(_ category: ModelCategory) async {
        await host.release(category)
        await updateGauges(category)
    }

    private func updateGauges(_ category: ModelCategory) async {
        guard category == .llm else { return }
        metrics.setGenerations(admitted: await host.admittedCount(.llm), slots: configuration.slots)
    }
}

/// A model held by a streamed response; released exactly once.
final class ModelLease: Sendable {
    private let releaseAction: Mutex<(@Sendable () async -> Void)?>

    init(_ release: @escaping @Sendable () async -> Void) {
        releaseAction = Mutex(release)
    }

    /// Releases the model; later calls do nothing.
    func release() async {
        let action = releaseAction.withLock { action in
            defer { action = nil }
            return action
        }
        await action?()
    }

    deinit {
        if let action = releaseAction.withLock({ $0 }) { Task { await action() } }
    }
}

/// JSON responses.
extension Response {
    /// A 200 response with `value` as its JSON body.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: value.jsonText()))
        )
    }

    /// A 200 response with `value` encoded as its JSON body.
    static func json(encoding value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Response(
            status: .ok,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(value)))
        )
    }

    /// A server-sent-events response: `produce` writes events through the ``EventStreamWriter``;
    /// `data: [DONE]` closes the stream. When the client goes away, the next write throws,
    /// which ends `produce` (and cancels whatever it was iterating).
    static func eventStream(
        _ produce: @escaping @Sendable (EventStreamWriter) async throws -> Void
    ) -> Response {
        streamed(contentType: "text/event-stream", produce)
    }

    /// A newline-delimited JSON response (Ollama's streams): `produce` writes one JSON value
    /// per line with ``EventStreamWriter/line(_:)``.
    static func lineStream(
        _ produce: @escaping @Sendable (EventStreamWriter) async throws -> Void
    ) -> Response {
        streamed(contentType: "application/x-ndjson", produce)
    }

    private static func streamed(
        contentType: String,
        _ produce: @escaping @Sendable (EventStreamWriter) async throws -> Void
    ) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: contentType, .cacheControl: "no-cache"],
            body: ResponseBody { writer in
                let events = EventStreamWriter()
                let task = Task {
                    defer { events.finish() }
                    try await produce(events)
                }
                do {
                    for await chunk in events.chunks {
                        try await writer.write(ByteBuffer(string: chunk))
                    }
                } catch {
                    task.cancel()
                    throw error
                }
                try await writer.finish(nil)
            }
        )
    }
}

/// Events of a server-sent-events response, handed from the producing task to the writer.
///
/// The producer never waits for the client: a client that stops reading holds at most one
/// generation's events (bounded by its token limit) while the other requests go on, and its
/// slot is freed when the generation ends.
final class EventStreamWriter: Sendable {
    let chunks: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation

    init() {
        (chunks, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
    }

    /// Sends one `data:` event.
    func send(_ value: JSONValue) {
        continuation.yield("data: \(value.jsonText())\n\n")
    }

    /// Sends one JSON value on a line of its own (a newline-delimited JSON stream).
    func line(_ value: JSONValue) {
        continuation.yield(value.jsonText() + "\n")
    }

    /// Sends `data: [DONE]`.
    func done() {
        continuation.yield("data: [DONE]\n\n")
    }

    func finish() {
        continuation.finish()
    }
}
