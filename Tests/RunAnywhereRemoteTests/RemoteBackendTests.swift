import Foundation
import RunAnywhere
import RunAnywhereRemote
import RunAnywhereServer
import RunAnywhereTestSupport
import RunAnywhereTesting
import Synchronization
import Testing

/// A second SDK instance that runs models here (deterministic) and remotely (RemoteModule).
@Suite("Remote engines: an OpenAI-compatible server behind the same Swift API")
struct RemoteBackendTests {
    static let weather = ToolDefinition(
        name: "get_weather",
        description: "The weather in a city",
        parameters: .object(["city": .string()], required: ["city"])
    )

    @Test("A remote model gives the same text, stream, conversation and vectors as the same model run here")
    func remoteMatchesLocal() async throws {
        try await withRemoteServer(apiKey: "test-key") { base in
            try await withDeterministicSDK(adding: [RemoteModule()]) { sdk in
                try sdk.registerRemoteModel(
                    id: "remote-llm",
                    baseURL: base,
                    remoteModelName: DeterministicModels.llm,
                    apiKey: "test-key"
                )
                // Top-k and repetition penalty are not OpenAI fields: the server's neutral ones apply.
                let options = LLMGenerationOptions(maxTokens: 24, temperature: 0, topK: 0, repetitionPenalty: 1)
                try await sdk.loadModel("remote-llm")
                let remote = try await sdk.generate("Tell me about the sea", options: options)
                var streamed = ""
                var completed: LLMGenerationResult?
                for try await event in try await sdk.generateStream("Tell me about the sea", options: options) {
                    switch event {
                    case .token(let text, _): streamed += text
                    case .completed(let result): completed = result
                    }
                }
                let conversation: [ChatMessage] = [
                    .system("Be brief."), .user("Hi"), .assistant("Hello!"), .user("Why?"),
                ]
                let remoteChat = try await sdk.chat(conversation, options: options)

                try await sdk.loadModel(DeterministicModels.llm)
                let local = try await sdk.generate("Tell me about the sea", options: options)
                let localChat = try await sdk.chat(conversation, options: options)

                #expect(remote.executedOn == .remote && local.executedOn == .local)
                #expect(!remote.text.isEmpty)
                #expect(remote.text == local.text)
                #expect(streamed == remote.text && completed?.text == remote.text)
                #expect(completed?.executedOn == .remote)
                #expect(remoteChat.text == localChat.text && remoteChat.executedOn == .remote)
                #expect(remote.generatedTokens == local.generatedTokens)

                try sdk.registerRemoteModel(
                    id: "remote-embedding",
                    baseURL: base,
                    remoteModelName: DeterministicModels.embedding,
                    apiKey: "test-key",
                    category: .embedding
                )
                let texts = ["The cat sat on the mat.", "Stock markets fell sharply today."]
                try await sdk.loadEmbeddingModel("remote-embedding")
                let remoteVectors = try await sdk.embeddings(for: texts)
                try await sdk.loadEmbeddingModel(DeterministicModels.embedding)
                let localVectors = try await sdk.embeddings(for: texts)
                #expect(remoteVectors.executedOn == .remote && remoteVectors.dimension == localVectors.dimension)
                for (a, b) in zip(remoteVectors.vectors, localVectors.vectors) {
                    #expect(zip(a, b).allSatisfy { abs($0 - $1) < 1e-5 })
                }
            }
        }
    }

    @Test("Structured output goes as a JSON Schema and tool calls come back as values the loop executes")
    func structuredAndTools() async throws {
        try await withRemoteServer(apiKey: "test-key") { base in
            try await withDeterministicSDK(adding: [RemoteModule()]) { sdk in
                try sdk.registerRemoteModel(
                    id: "remote-llm",
                    baseURL: base,
                    remoteModelName: DeterministicModels.llm,
                    apiKey: "test-key"
                )
                try await sdk.loadModel("remote-llm")
                let schema = JSONSchema.object(
                    ["city": .string(minLength: 1), "population": .integer(minimum: 0)],
                    required: ["city", "population"]
                )
                let structured = try await sdk.generateStructured(
                    "The largest city in Japan",
                    schema: schema,
                    options: LLMGenerationOptions(maxTokens: 200, temperature: 0)
                )
                #expect(structured.isValid, "\(structured.text)")
                #expect(structured.generation.executedOn == .remote)

                let calls = CallLog()
                try sdk.tools.register(Self.weather) { arguments in
                    calls.add(arguments["city"]?.stringValue ?? "")
                    return ["temperature": 21]
                }
                let result = try await sdk.generateWithTools(
                    "What is the weather in Paris?",
                    tools: [Self.weather],
                    options: LLMGenerationOptions(maxTokens: 200, temperature: 0),
                    toolOptions: ToolCallingOptions(toolChoice: .tool("get_weather"), maxIterations: 2)
                )
                #expect(result.toolCalls.first?.name == "get_weather")
                #expect(result.toolResults.first?.output == ["temperature": 21])
                #expect(calls.count == 1)
                #expect(result.generation.executedOn == .remote)
                // The tool's result went back as a `tool` turn answering the call's id.
                let toolTurn = try #require(result.messages.first { $0.role == .tool })
                #expect(toolTurn.toolCallId == result.toolCalls.first?.id)
            }
        }
    }

    @Test("The API key lives in the secure store, is sent as a bearer token, and a wrong one is remote_unauthorized")
    func apiKey() async throws {
        try await withRemoteServer(apiKey: "test-key") { base in
            try await withDeterministicSDK(adding: [RemoteModule()]) { sdk in
                let model = try sdk.registerRemoteModel(
                    id: "remote-llm",
                    baseURL: base,
                    remoteModelName: DeterministicModels.llm,
                    apiKey: "test-key"
                )
                #expect(model.remote?.apiKeySecret == "remote-remote-llm-api-key")
                #expect(try sdk.secureStore().string(for: "remote-remote-llm-api-key") == "test-key")
                let registry = try String(
                    contentsOf: sdk.paths.home.appendingPathComponent("registry.json"),
                    encoding: .utf8
                )
                #expect(!registry.contains("test-key"))
                try await sdk.loadModel("remote-llm")
                #expect(try await sdk.generate("Hi", options: LLMGenerationOptions(maxTokens: 4)).executedOn == .remote)
                // Removing the model deletes the key stored under its default name.
                try await sdk.removeModel("remote-llm")
                #expect(try sdk.secureStore().string(for: "remote-remote-llm-api-key") == nil)

                try sdk.registerRemoteModel(
                    id: "wrong-key",
                    baseURL: base,
                    remoteModelName: DeterministicModels.llm,
                    apiKey: "not-the-key"
                )
                let error = await #expect(throws: SDKException.self) { try await sdk.loadModel("wrong-key") }
                #expect(error?.code == .remoteUnauthorized, "\(String(describing: error))")
                // A secret that is not in the store is named.
                try sdk.registerRemoteModel(
                    id: "no-key",
                    baseURL: base,
                    remoteModelName: DeterministicModels.llm,
                    apiKeySecret: "never-stored"
                )
                let missing = await #expect(throws: SDKException.self) { try await sdk.loadModel("no-key") }
                #expect(missing?.code == .invalidAPIKey && missing?.message.contains("never-stored") == true)
            }
        }
    }

    @Test("A base URL that is not http(s), or a bad id or category, is refused and stores nothing")
    func badRegistrations() async throws {
        try await withDeterministicSDK(adding: [RemoteModule()]) { sdk in
            let before = try sdk.availableModels().map(\.id)
            for url in ["ftp://example.com/v1", "file:///etc/passwd", "http:///v1", "http://user:pw@host/v1"] {
                let error = #expect(throws: SDKException.self) {
                    try sdk.registerRemoteModel(
                        id: "x",
                        baseURL: URL(string: url)!,
                        remoteModelName: "m",
                        apiKey: "k"
                    )
                }
                #expect(error?.code == .invalidBaseURL, "\(url): \(String(describing: error))")
            }
            #expect(throws: SDKException.self) {
                try sdk.registerRemoteModel(id: "Bad Id", baseURL: URL(string: "http://h/v1")!, remoteModelName: "m")
            }
            #expect(throws: SDKException.self) {
                try sdk.registerRemoteModel(
                    id: "x",
                    baseURL: URL(string: "http://h/v1")!,
                    remoteModelName: "m",
                    category: .speechSynthesis
                )
            }
            #expect(throws: SDKException.self) {
                try sdk.registerRemoteModel(id: "x", baseURL: URL(string: "http://h/v1")!, remoteModelName: " ")
            }
            #expect(try sdk.availableModels().map(\.id) == before)
            #expect(try sdk.secureStore().names().filter { $0.hasPrefix("remote-") }.isEmpty)
        }
    }

    @Test("Ending a stream early closes the request: the server sees its client go away")
    func cancellationClosesTheRequest() async throws {
        let server = try await ScriptedOpenAIServer.start()
        try await withDeterministicSDK(adding: [RemoteModule()]) { sdk in
            try sdk.registerRemoteModel(id: "endless", baseURL: server.baseURL(.endless), remoteModelName: "m")
            try await sdk.loadModel("endless")
            var pieces = 0
            for try await event in try await sdk.generateStream("Hi", options: LLMGenerationOptions(maxTokens: 4096)) {
                if case .token = event { pieces += 1 }
                if pieces == 3 { break }
            }
            #expect(pieces == 3)
            // Returns once the server's write to the closed connection failed.
            await server.waitForClosedStream()
            #expect(server.requests(.endless) == 1)
        }
        await server.stop()
    }

    @Test("Every kind of broken server gives its own typed error, with retries only where a retry is safe")
    func brokenServers() async throws {
        let server = try await ScriptedOpenAIServer.start()
        defer { Task { await server.stop() } }
        try await withDeterministicSDK(adding: [RemoteModule()]) { sdk in
            let expected: [(ScriptedOpenAIServer.Scenario, SDKException.Code, Int, String)] = [
                (.html, .remoteBadResponse, 1, "HTML"),
                (.garbage, .remoteBadResponse, 1, "not JSON"),
                (.truncated, .remoteUnreachable, 1, "ended before"),
                (.hugeLine, .remoteBadResponse, 1, "longer than"),
                (.errorChunk, .remoteServerError, 1, "the GPU fell over"),
                (.unauthorized, .remoteUnauthorized, 1, "Incorrect API key"),
                (.notFound, .remoteNotFound, 1, "does not exist"),
                (.rateLimited, .remoteRateLimited, 3, "Rate limit"),
                (.serverError, .remoteServerError, 1, "Internal error"),
                (.unavailable, .remoteServerError, 3, "Overloaded"),
                (.hang, .remoteTimeout, 1, "did not answer"),
            ]
            for (scenario, code, requests, text) in expected {
                let id = "broken-\(scenario.rawValue.lowercased())"
                // Only the hanging server waits for the timeout: the others answer at once, and a
                // loaded machine took over a second to stream the huge line.
                try sdk.registerRemoteModel(
                    id: id,
                    baseURL: server.baseURL(scenario),
                    remoteModelName: "m",
                    timeoutSeconds: scenario == .hang ? 1 : 60
                )
                try await sdk.loadModel(id)
                let error = await #expect(throws: SDKException.self, "\(scenario)") {
                    _ = try await sdk.generate("Hi", options: LLMGenerationOptions(maxTokens: 8))
                }
                #expect(error?.code == code, "\(scenario): \(String(describing: error))")
                #expect(error?.message.contains(text) == true, "\(scenario): \(String(describing: error))")
                #expect(server.requests(scenario) == requests, "\(scenario): \(server.requests(scenario)) requests")
            }
            // A server that answers `stream: true` with one whole completion still works.
            try sdk.registerRemoteModel(id: "whole", baseURL: server.baseURL(.ignoresStream), remoteModelName: "m")
            try await sdk.loadModel("whole")
            let whole = try await sdk.generate("Hi", options: LLMGenerationOptions(maxTokens: 8))
            #expect(whole.text == "Hello there" && whole.generatedTokens == 2 && whole.executedOn == .remote)
            // A model the server does not list fails the load, naming what it serves.
            try sdk.registerRemoteModel(id: "unknown", baseURL: server.baseURL(.html), remoteModelName: "nope")
            let unknown = await #expect(throws: SDKException.self) { try await sdk.loadModel("unknown") }
            #expect(unknown?.code == .remoteNotFound && unknown?.recoverySuggestion?.contains("serves: m") == true)
        }
        await server.stop()
    }
}

/// Arguments a test tool was called with.
final class CallLog: Sendable {
    private let calls = Mutex<[String]>([])

    func add(_ call: String) { calls.withLock { $0.append(call) } }

    var count: Int { calls.withLock { $0.count } }
}
