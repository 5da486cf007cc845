import Foundation
import Hummingbird
import RunAnywhere

/// The server's routes: the OpenAI endpoints under `/v1`, llama-server's `/apply-template`,
/// Ollama's API under `/api` (``OllamaRoutes``), and `/health`, `/metrics` and `/openapi.json`
/// at the root.
///
/// Every `/v1` route is registered on one route group that carries the key check, so the check
/// runs on what the router resolved (`//v1/models` and `/v1/models/` reach the same route, and
/// so the same check), never on the raw path's spelling.
struct ServerRoutes: Sendable {
    let state: ServerState

    /// The routes anyone may call without the key: they serve no model and reveal no data.
    static let publicPaths: Set<String> = ["/health", "/metrics", "/openapi.json"]

    func register(on router: Router<BasicRequestContext>) {
        let chat = ChatCompletionsEndpoint(state: state)
        let completions = CompletionsEndpoint(state: state)
        let embeddings = EmbeddingsEndpoint(state: state)
        let transcriptions = TranscriptionsEndpoint(state: state)
        let speech = SpeechEndpoint(state: state)
        let v1 = router.group("v1")
        if let key = state.configuration.apiKey {
            v1.add(middleware: BearerAuthMiddleware(apiKey: key))
        }
        v1.post("chat/completions") { request, _ in try await chat.handle(request) }
        v1.post("completions") { request, _ in try await completions.handle(request) }
        v1.post("embeddings") { request, _ in try await embeddings.handle(request) }
        v1.post("audio/transcriptions") { request, _ in try await transcriptions.handle(request) }
        v1.post("audio/speech") { request, _ in try await speech.handle(request) }
        v1.get("models") { _, _ in listModels() }
        // llama-server's route, at the root as there, behind the same key as /v1.
        let root = router.group()
        if let key = state.configuration.apiKey {
            root.add(middleware: BearerAuthMiddleware(apiKey: key))
        }
        root.post("apply-template") { request, _ in try await chat.prompt(request) }
        OllamaRoutes(state: state).register(on: router)
        v1.get("models/{model}") { _, context in
            let id = try context.parameters.require("model")
            guard let model = state.host.offeredModels().first(where: { $0.id == id }) else {
                throw OpenAIError(
                    .notFound,
                    "The model '\(id)' does not exist",
                    param: "model",
                    code: "model_not_found"
                )
            }
            return Response.json(Self.modelValue(model))
        }
        router.get("/health") { _, _ in
            Response.json([
                "status": "ok",
                "models": .array(await state.host.loadedModelIds.map(JSONValue.string)),
            ])
        }
        router.get("/metrics") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: state.metrics.render()))
            )
        }
        router.get("/openapi.json") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: openAPIDocument()))
            )
        }
    }

    /// The OpenAPI document with each request's `model` limited to the offered models of its
    /// kind, and the speech input to the configured length, so clients and fuzzers see what is valid.
    private func openAPIDocument() -> String {
        guard case .object(var document) = try? JSONValue(parsing: OpenAPIDocument.json),
            case .object(var components) = document["components"],
            case .object(var schemas) = components["schemas"]
        else { return OpenAPIDocument.json }
        let offered = state.host.offeredModels()
        let chat: Set<ModelCategory> = [.llm, .vision]
        let requests: [(String, Set<ModelCategory>)] = [
            ("CreateChatCompletionRequest", chat), ("CreateCompletionRequest", [.llm]),
            ("CreateEmbeddingRequest", [.embedding]), ("CreateTranscriptionRequest", [.speechRecognition]),
            ("CreateSpeechRequest", [.speechSynthesis]), ("OllamaChatRequest", chat), ("OllamaGenerateRequest", chat),
            ("OllamaEmbedRequest", [.embedding]),
        ]
        for (name, categories) in requests {
            let ids = offered.filter { categories.contains($0.category) }.map { JSONValue.string($0.id) }
            guard !ids.isEmpty, case .object(var schema) = schemas[name],
                case .object(var properties) = schema["properties"],
                case .object(var model) = properties["model"]
            else { continue }
            model["enum"] = .array(ids)
            properties["model"] = .object(model)
            schema["properties"] = .object(properties)
            schemas[name] = .object(schema)
        }
        if case .object(var speech) = schemas["CreateSpeechRequest"],
            case .object(var properties) = speech["properties"],
            case .object(var input) = properties["input"]
        {
            input["maxLength"] = .integer(Int64(state.configuration.maxSpeechCharacters))
            properties["input"] = .object(input)
            speech["properties"] = .object(properties)
            schemas["CreateSpeechRequest"] = .object(speech)
        }
        components["schemas"] = .object(schemas)
        document["components"] = .object(components)
        return JSONValue.object(document).jsonText()
    }

    private func listModels() -> Response {
        .json(["object": "list", "data": .array(state.host.offeredModels().map(Self.modelValue))])
    }

    static func modelValue(_ model: ModelInfo) -> JSONValue {
        [
            "id": .string(model.id),
            "object": "model",
            "created": .integer(Int64(model.registeredAt.timeIntervalSince1970)),
            "owned_by": .string(model.framework.rawValue),
            "capabilities": .array(model.category.servedCapabilities.map(JSONValue.string)),
        ]
    }
}
