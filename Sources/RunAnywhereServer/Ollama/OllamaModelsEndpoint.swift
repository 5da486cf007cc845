import Foundation
import Hummingbird
import RunAnywhere

/// Ollama's model routes: `/api/tags`, `/api/show`, `/api/ps`, `/api/pull`, `/api/delete`,
/// `/api/copy`, and `/api/embed`.
struct OllamaModelsEndpoint: Sendable {
    let state: ServerState

    struct NameBody: Decodable, Sendable {
        var model: String?
        /// Older clients send `name`.
        var name: String?
        var stream: Bool?
        var insecure: Bool?

        func required() throws(OpenAIError) -> String {
            guard let value = model ?? name, !value.isEmpty else {
                throw .invalid("'model' is required", param: "model")
            }
            return Ollama.modelId(value)
        }
    }

    struct CopyBody: Decodable, Sendable {
        var source: String
        var destination: String
    }

    struct EmbedBody: Decodable, Sendable {
        var model: String
        var input: StringOrArray
        var truncate: Bool?
        var options: JSONValue?
        var keepAlive: JSONValue?
        var dimensions: Int?

        enum CodingKeys: String, CodingKey {
            case model, input, truncate, options, dimensions
            case keepAlive = "keep_alive"
        }
    }

    /// `GET /api/tags`: the models on this machine.
    func tags() async throws -> Response {
        let models = state.host.offeredModels().filter { $0.isDownloaded }
        return .json(["models": .array(models.map { Self.summary($0) })])
    }

    /// `GET /api/ps`: the loaded models, with when each unloads.
    func running() async throws -> Response {
        let loaded = await state.host.loadedModelIds
        var entries: [JSONValue] = []
        for model in state.host.offeredModels() where loaded.contains(model.id) {
            guard case .object(var entry) = Self.summary(model) else { continue }
            let expiry = await state.host.expiry(of: model.category) ?? Date(timeIntervalSinceNow: 100 * 365 * 86_400)
            entry["expires_at"] = .string(Ollama.timestamp(expiry))
            entry["size_vram"] = 0
            if let context = await state.loadedContextLength(model.category) {
                entry["context_length"] = .integer(Int64(context))
            }
            entries.append(.object(entry))
        }
        return .json(["models": .array(entries)])
    }

    /// `POST /api/show`: the model's template, parameters, details and GGUF metadata.
    func show(_ request: Request) async throws -> Response {
        let body = try await state.decode(NameBody.self, from: request)
        let model = try Self.offered(try body.required(), state: state)
        let header = model.localPath.flatMap { try? GGUFFile(contentsOf: $0) }
        var info: JSONObject = [:]
        for key in header?.metadataKeys ?? [] {
            // Long lists (the vocabulary) stay out, as Ollama leaves them out unless asked.
            guard let value = header?.metadata[key], key != "tokenizer.chat_template" else { continue }
            info[key] = Self.json(value)
        }
        var capabilities: [JSONValue] = []
        switch model.category {
        case .llm: capabilities = ["completion", "tools"]
        case .vision: capabilities = ["completion", "vision"]
        case .embedding: capabilities = ["embedding"]
        default: break
        }
        var value: JSONObject = [
            "modelfile": .string("# Served by runanywhere\nFROM \(model.localPath?.lastPathComponent ?? model.id)\n"),
            "parameters": "temperature 0.8\ntop_k 40\ntop_p 0.9\nrepeat_penalty 1.1",
            "template": .string(header?.metadata["tokenizer.chat_template"]?.stringValue ?? ""),
            "details": Self.details(model, header: header),
            "model_info": .object(info),
            "capabilities": .array(capabilities),
        ]
        value["modified_at"] = .string(Ollama.timestamp(model.downloadedAt ?? model.registeredAt))
        return .json(.object(value))
    }

    /// `POST /api/pull`: downloads a registered model, or registers a reference
    /// (`hf.co/ORG/REPO:QUANT`) and downloads it; progress streamed unless `stream` is false.
    func pull(_ request: Request) async throws -> Response {
        let body = try await state.decode(NameBody.self, from: request)
        let name = try body.required()
        let sdk = state.sdk
        let model: ModelInfo
        if ModelReference.isReference(name) {
            model = try await sdk.registerModel(reference: name)
        } else {
            guard let registered = try? sdk.model(name) else {
                throw OpenAIError(.notFound, "pull model manifest: file does not exist ('\(name)' is not registered)")
            }
            model = registered
        }
        guard body.stream ?? true else {
            if !model.isDownloaded {
                _ = try await sdk.downloadModel(model.id) { _ in }
            }
            return .json(["status": "success"])
        }
        let stream = model.isDownloaded ? nil : try sdk.downloadModel(model.id)
        let digest = "sha256:" + (model.artifact?.remoteFiles.first?.sha256 ?? "")
        return .lineStream { lines in
            lines.line(["status": "pulling manifest"])
            if let stream {
                var last: DownloadProgress?
                for await progress in stream {
                    last = progress
                    guard progress.stage == .downloading else { continue }
                    var line: JSONObject = [
                        "status": .string("pulling \(model.id)"),
                        "digest": .string(digest),
                        "completed": .integer(progress.bytesDownloaded),
                    ]
                    if let total = progress.totalBytes { line["total"] = .integer(total) }
                    lines.line(.object(line))
                }
                guard last?.stage == .completed else {
                    lines.line(["error": .string(last?.error?.message ?? "The download did not complete")])
                    return
                }
            }
            lines.line(["status": "verifying sha256 digest"])
            lines.line(["status": "success"])
        }
    }

    /// `DELETE /api/delete`: unregisters the model and deletes its files.
    func delete(_ request: Request) async throws -> Response {
        let body = try await state.decode(NameBody.self, from: request)
        let model = try Self.offered(try body.required(), state: state)
        await state.host.unloadIfIdle(model.category)
        try await state.sdk.removeModel(model.id)
        return Response(status: .ok)
    }

    /// `POST /api/copy`: the model's files again, under another name.
    func copy(_ request: Request) async throws -> Response {
        let body = try await state.decode(CopyBody.self, from: request)
        let source = try Self.offered(Ollama.modelId(body.source), state: state)
        guard let file = source.localPath else {
            throw OpenAIError.invalid("'\(source.id)' has no files on this machine to copy", param: "source")
        }
        _ = try state.sdk.importModel(
            from: file,
            id: Ollama.modelId(body.destination),
            name: body.destination,
            category: source.category,
            framework: source.framework
        )
        return Response(status: .ok)
    }

    /// `POST /api/embed`: one vector per input, normalized as Ollama's are.
    func embed(_ request: Request) async throws -> Response {
        let body = try await state.decode(EmbedBody.self, from: request)
        let model = try state.host.model(Ollama.modelId(body.model), for: .embedding)
        let texts = body.input.values
        guard !texts.isEmpty, !texts.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
            throw OpenAIError.invalid("'input' must hold text", param: "input")
        }
        guard texts.count <= EmbeddingsEndpoint.maximumInputs else {
            throw OpenAIError.invalid("'input' takes at most \(EmbeddingsEndpoint.maximumInputs) texts", param: "input")
        }
        let keepAlive = try Ollama.keepAlive(body.keepAlive)
        if let keepAlive { await state.host.setKeepAlive(keepAlive, for: .embedding) }
        let arrival = ContinuousClock.now
        let (result, loadMs) = try await state.withModel(model) {
            let loadMs = arrival.duration(to: .now).milliseconds
            return (try await state.sdk.embeddings(for: texts), loadMs)
        }
        if keepAlive == .duration(.zero) { await state.host.unloadIfIdle(.embedding) }
        if let dimensions = body.dimensions, dimensions != result.dimension {
            throw OpenAIError.invalid(
                "'\(model.id)' makes \(result.dimension)-dimensional vectors, not \(dimensions)",
                param: "dimensions"
            )
        }
        let tokens = result.tokenCounts.reduce(0, +)
        state.metrics.recordTokens(prompt: tokens, completion: 0)
        return .json([
            "model": .string(body.model),
            "embeddings": .array(result.vectors.map { .array($0.map { .number(Double($0)) }) }),
            "total_duration": Ollama.nanoseconds(arrival.duration(to: .now).milliseconds),
            "load_duration": Ollama.nanoseconds(loadMs),
            "prompt_eval_count": .integer(Int64(tokens)),
        ])
    }

    /// An offered model of any served kind, by id; 404 otherwise.
    private static func offered(_ id: String, state: ServerState) throws(OpenAIError) -> ModelInfo {
        guard let model = state.host.offeredModels().first(where: { $0.id == id }) else {
            throw OpenAIError(.notFound, "model '\(id)' not found", code: "model_not_found")
        }
        return model
    }

    /// A model as `/api/tags` and `/api/ps` list it.
    static func summary(_ model: ModelInfo) -> JSONValue {
        let header = model.localPath.flatMap { try? GGUFFile(contentsOf: $0) }
        return [
            "name": .string(model.id),
            "model": .string(model.id),
            "modified_at": .string(Ollama.timestamp(model.downloadedAt ?? model.registeredAt)),
            "size": .integer(model.sizeBytes ?? 0),
            "digest": .string(model.artifact?.remoteFiles.first?.sha256 ?? ""),
            "details": details(model, header: header),
        ]
    }

    /// Ollama's `details`: format, family, parameter size and quantization, from the GGUF header.
    static func details(_ model: ModelInfo, header: GGUFFile?) -> JSONValue {
        let family = header?.architecture ?? model.framework.rawValue
        let fileType = header?.metadata["general.file_type"]?.intValue
        return [
            "parent_model": "",
            "format": .string(model.format.rawValue),
            "family": .string(family),
            "families": [.string(family)],
            "parameter_size": .string(header?.metadata["general.size_label"]?.stringValue ?? ""),
            "quantization_level": .string(fileType.flatMap { quantizations[$0] } ?? ""),
        ]
    }

    /// llama.cpp's file types (`general.file_type`) by name.
    static let quantizations: [Int: String] = [
        0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K", 11: "Q3_K_S",
        12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K",
        19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL",
        26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16",
    ]

    /// A metadata value as JSON; arrays are left out (`null`), as Ollama leaves them.
    private static func json(_ value: GGUFValue) -> JSONValue {
        if let text = value.stringValue { return .string(text) }
        if let flag = value.boolValue { return .bool(flag) }
        if let integer = value.intValue { return .integer(Int64(integer)) }
        if let number = value.doubleValue, number.isFinite { return .number(number) }
        return .null
    }
}
