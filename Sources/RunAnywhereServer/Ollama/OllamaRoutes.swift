import Foundation
import Hummingbird
import RunAnywhere

/// Ollama's API under `/api`, beside OpenAI's, for the clients that speak it (Open WebUI,
/// Home Assistant, Continue, LangChain's Ollama integration, the `ollama` libraries): the shapes
/// of Ollama's `docs/api.md`, the same models, key and limits as `/v1`.
///
/// Errors are Ollama's `{"error": "…"}` with the status `/v1` would send.
struct OllamaRoutes: Sendable {
    let state: ServerState

    func register(on router: Router<BasicRequestContext>) {
        let api = router.group("api")
        api.add(middleware: OllamaErrorMiddleware())
        if let key = state.configuration.apiKey {
            api.add(middleware: BearerAuthMiddleware(apiKey: key))
        }
        let generation = OllamaGenerationEndpoint(state: state)
        let models = OllamaModelsEndpoint(state: state)
        api.post("chat") { request, _ in try await generation.chat(request) }
        api.post("generate") { request, _ in try await generation.generate(request) }
        api.post("embed") { request, _ in try await models.embed(request) }
        api.get("tags") { _, _ in try await models.tags() }
        api.post("show") { request, _ in try await models.show(request) }
        api.get("ps") { _, _ in try await models.running() }
        api.post("pull") { request, _ in try await models.pull(request) }
        api.delete("delete") { request, _ in try await models.delete(request) }
        api.post("copy") { request, _ in try await models.copy(request) }
        api.get("version") { _, _ in Response.json(["version": .string(RunAnywhere.version)]) }
    }
}

/// Renders the server's errors as Ollama does: `{"error": "message"}`, with the status and
/// message the OpenAI routes give the same error (``OpenAIErrorMiddleware/openAIError(for:)``).
struct OllamaErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return Self.response(OpenAIErrorMiddleware<Context>.openAIError(for: error))
        }
    }

    static func response(_ error: OpenAIError) -> Response {
        var response = Response.json(["error": .string(error.message)], status: error.status)
        if let retryAfter = error.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }
}

/// What the Ollama endpoints share: names, times, options and model details.
enum Ollama {
    /// A model name as Ollama clients send it: the id, or the id with a `:latest` tag.
    static func modelId(_ name: String) -> String {
        name.hasSuffix(":latest") ? String(name.dropLast(":latest".count)) : name
    }

    /// Times as Ollama writes them (RFC 3339 with fractions of a second).
    static func timestamp(_ date: Date = Date()) -> String {
        timestampStyle.format(date)
    }

    private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// Nanoseconds, as Ollama's durations are.
    static func nanoseconds(_ milliseconds: Double) -> JSONValue {
        .integer(Int64((milliseconds * 1_000_000).rounded()))
    }

    /// `keep_alive`: a number of seconds, or a Go duration (`5m`, `1h30m`, `300ms`); negative
    /// keeps the model loaded, zero unloads it once the request is done; `nil` when absent.
    static func keepAlive(_ value: JSONValue?) throws(OpenAIError) -> ModelHost.KeepAlive? {
        guard let value, value != .null else { return nil }
        let seconds: Double
        switch value {
        case .integer(let number): seconds = Double(number)
        case .number(let number): seconds = number
        case .string(let text):
            guard let parsed = parseDuration(text) else {
                throw .invalid(
                    "'keep_alive' must be a duration such as 5m, 30s or -1 (got '\(text)')",
                    param: "keep_alive"
                )
            }
            seconds = parsed
        default:
            throw .invalid("'keep_alive' must be a number of seconds or a duration string", param: "keep_alive")
        }
        guard seconds.isFinite else { throw .invalid("'keep_alive' must be finite", param: "keep_alive") }
        if seconds < 0 { return .forever }
        return .duration(.milliseconds(Int64(min(seconds, 10 * 365 * 86_400) * 1000)))
    }

    /// A Go duration (`1h30m`, `300ms`, `-1`, `10`) in seconds; a bare number is seconds.
    static func parseDuration(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let plain = Double(trimmed) { return plain }
        var rest = Substring(trimmed)
        var sign = 1.0
        if rest.first == "-" {
            sign = -1
            rest = rest.dropFirst()
        }
        let units: [(String, Double)] = [
            ("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600),
        ]
        var total = 0.0
        guard !rest.isEmpty, rest.count <= 64 else { return nil }
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isNumber || $0 == "." }
            guard !digits.isEmpty, let number = Double(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            guard let (unit, scale) = units.first(where: { rest.hasPrefix($0.0) }) else { return nil }
            rest = rest.dropFirst(unit.count)
            total += number * scale
        }
        return sign * total
    }

    /// The generation options Ollama's `options` object gives, over Ollama's defaults
    /// (temperature 0.8, top_k 40, top_p 0.9, repeat_penalty 1.1, generation to the end of the
    /// context); unknown options are ignored, as Ollama ignores them.
    static func options(_ value: JSONValue?, contextLength: Int) throws(OpenAIError) -> LLMGenerationOptions {
        var options = LLMGenerationOptions(
            maxTokens: contextLength,
            temperature: 0.8,
            topP: 0.9,
            topK: 40,
            repetitionPenalty: 1.1
        )
        guard let value, value != .null else { return options }
        guard case .object(let fields) = value else { throw .invalid("'options' must be an object", param: "options") }
        func number(_ name: String) throws(OpenAIError) -> Double? {
            guard let field = fields[name], field != .null else { return nil }
            guard let number = field.doubleValue, number.isFinite else {
                throw .invalid("options.\(name) must be a number", param: "options.\(name)")
            }
            return number
        }
        if let predict = try number("num_predict"), predict >= 0 {
            options.maxTokens = max(1, min(Int(predict), contextLength))
        }
        if let temperature = try number("temperature") { options.temperature = Float(temperature) }
        if let topP = try number("top_p") { options.topP = Float(topP) }
        if let topK = try number("top_k") { options.topK = Int(max(0, min(topK, 1_000_000))) }
        if let penalty = try number("repeat_penalty") { options.repetitionPenalty = Float(penalty) }
        if let seed = try number("seed"), seed >= 0 {
            options.seed = UInt32(truncatingIfNeeded: Int64(min(seed, 1e18)))
        }
        // No more than the machine's cores: llama.cpp's threads wait for each other at every
        // step, so a client asking for hundreds (a fuzzer did) would stall every generation.
        let cores = Double(max(1, ProcessInfo.processInfo.activeProcessorCount))
        if let threads = try number("num_thread"), threads >= 1 { options.threads = Int(min(threads, cores)) }
        if let stop = fields["stop"], stop != .null {
            guard let list = stop.arrayValue?.compactMap(\.stringValue), list.count == stop.arrayValue?.count else {
                throw .invalid("options.stop must be a list of strings", param: "options.stop")
            }
            options.stopSequences = list.filter { !$0.isEmpty }
        }
        do {
            try options.validate()
        } catch {
            throw OpenAIError(error, param: "options")
        }
        return options
    }

    /// `format`: `"json"` (any JSON object), a JSON Schema, or nothing (`""` or absent).
    static func schema(_ format: JSONValue?) throws(OpenAIError) -> JSONSchema? {
        switch format {
        case .none, .null, .string(""): return nil
        case .string("json"): return JSONSchema.object([:], additionalProperties: true)
        case .object:
            do {
                return try JSONSchema(format ?? .null)
            } catch {
                throw OpenAIError(error, param: "format")
            }
        default: throw .invalid("'format' must be \"json\" or a JSON Schema object", param: "format")
        }
    }

    /// `think`: true or an effort (`low`, `medium`, `high`) reasons first, false answers directly.
    static func reasoning(_ think: JSONValue?) throws(OpenAIError) -> ReasoningMode? {
        switch think {
        case .none, .null: return nil
        case .bool(let on): return on ? .on : .off
        case .string(let effort) where ["low", "medium", "high"].contains(effort): return .on
        default: throw .invalid("'think' must be true, false, low, medium or high", param: "think")
        }
    }

    /// The statistics Ollama ends a generation with.
    static func statistics(_ generation: LLMGenerationResult, loadMs: Double) -> JSONObject {
        let promptMs = min(generation.timeToFirstTokenMs, generation.totalMs)
        return [
            "done_reason": .string(
                generation.finishReason == .length || generation.finishReason == .contextFull
                    ? "length" : "stop"
            ),
            "total_duration": nanoseconds(generation.totalMs + loadMs),
            "load_duration": nanoseconds(loadMs),
            "prompt_eval_count": .integer(Int64(generation.promptTokens)),
            "prompt_eval_duration": nanoseconds(promptMs),
            "eval_count": .integer(Int64(generation.generatedTokens)),
            "eval_duration": nanoseconds(max(0, generation.totalMs - promptMs)),
        ]
    }
}
