import Foundation
import RealEngineTestSupport
import RunAnywhere
import RunAnywhereTestSupport
import Synchronization
import Testing

/// Models on two real OpenAI-compatible engines started by the tests: our own
/// `runanywhere serve`, and llama-cpp-python's server on the same GGUF file.
extension RealEngineTests {
    @Suite("Remote engines: runanywhere serve and llama-cpp-python's server")
    struct RemoteEngineTests {
        static let key = "remote-test-key"
        /// Greedy, with the OpenAI servers' neutral top-k and repetition penalty on both sides.
        static let options = LLMGenerationOptions(maxTokens: 40, temperature: 0, topK: 0, repetitionPenalty: 1)
        static let weather = ToolDefinition(
            name: "get_weather",
            description: "Get the current weather for a city",
            parameters: .object(["city": .string()], required: ["city"])
        )

        /// llama-cpp-python's server on the default model's GGUF, listing it as `smollm2`.
        static func startLlamaCppPython() async throws -> (ServerProcess, URL) {
            let model = try DefaultModels.llm()
            let server = try await onOwnThread {
                try ServerProcess.llamaCppPython(model: try #require(model.localPath), alias: "smollm2")
            }
            guard let base = server.openAIBase else {
                server.kill()
                throw SDKException(.internalError, "llama-cpp-python did not start: \(server.output().suffix(2000))")
            }
            return (server, base)
        }

        /// `runanywhere serve` over the default LLM, embedding and STT models, with an API key.
        static func startServe(home: URL) async throws -> ServerProcess {
            let sdk = try RunAnywhereSDK(home: home, environment: .development, modules: allModules)
            for id in [DefaultModelIds.llm, DefaultModelIds.embedding, DefaultModelIds.stt] {
                var model = try DefaultModels.model(id)
                model.lastUsedAt = nil
                try sdk.registerModel(model)
            }
            await sdk.shutdown()
            return try await onOwnThread {
                try ServerProcess.start([
                    "serve", "--home", home.path, "--port", "0", "--api-key", Self.key, "--slots", "1",
                ])
            }
        }

        @Test(
            "On runanywhere serve, text, stream, chat, embeddings and a real recording match the same models run here"
        )
        func serveMatchesLocal() async throws {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-remote-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            let server = try await Self.startServe(home: home)
            defer { server.kill() }
            let base = try #require(server.openAIBase, "the server did not start: \(server.errorOutput())")
            let clip = try #require(
                try SpeechCorpus.bootstrapped().clips.first { $0.speaker == "librivox-reader" && $0.seconds > 3 },
                "no real recording: run scripts/bootstrap models"
            )
            let audio = try WAVFile.read(contentsOf: clip.file)

            try await withSDK(models: [DefaultModelIds.llm, DefaultModelIds.embedding, DefaultModelIds.stt]) { sdk in
                for (id, name, category) in [
                    ("remote-llm", DefaultModelIds.llm, ModelCategory.llm),
                    ("remote-embedding", DefaultModelIds.embedding, .embedding),
                    ("remote-stt", DefaultModelIds.stt, .speechRecognition),
                ] {
                    try sdk.registerRemoteModel(
                        id: id,
                        baseURL: base,
                        remoteModelName: name,
                        apiKey: Self.key,
                        category: category
                    )
                }
                let prompt = "Explain in one sentence why the sky is blue."
                let conversation: [ChatMessage] = [
                    .system("You are brief."), .user("Name a fruit."), .assistant("Apple."), .user("Another?"),
                ]
                try await sdk.loadModel("remote-llm")
                let remote = try await sdk.generate(prompt, options: Self.options)
                var streamed = ""
                for try await event in try await sdk.generateStream(prompt, options: Self.options) {
                    if case .token(let text, _) = event { streamed += text }
                }
                let remoteChat = try await sdk.chat(conversation, options: Self.options)
                try await sdk.loadModel(DefaultModelIds.llm)
                let local = try await sdk.generate(prompt, options: Self.options)
                let localChat = try await sdk.chat(conversation, options: Self.options)
                print("serve remote: \"\(remote.text)\" (\(remote.generatedTokens) tokens); local: \"\(local.text)\"")
                #expect(remote.executedOn == .remote && local.executedOn == .local)
                #expect(!remote.text.isEmpty)
                #expect(remote.text == local.text, "greedy decoding of one model gives one text on both sides")
                #expect(streamed == remote.text)
                #expect(remoteChat.text == localChat.text && remoteChat.executedOn == .remote)

                let texts = ["A cat sleeps on the warm windowsill.", "The central bank raised interest rates."]
                try await sdk.loadEmbeddingModel("remote-embedding")
                let remoteVectors = try await sdk.embeddings(for: texts)
                try await sdk.loadEmbeddingModel(DefaultModelIds.embedding)
                let localVectors = try await sdk.embeddings(for: texts)
                #expect(remoteVectors.executedOn == .remote && remoteVectors.dimension == 384)
                for (a, b) in zip(remoteVectors.vectors, localVectors.vectors) {
                    #expect(RunAnywhere.cosineSimilarity(a, b) > 0.9999)
                }

                try await sdk.loadSTTModel("remote-stt")
                let heard = try await sdk.transcribe(audio)
                try await sdk.loadSTTModel(DefaultModelIds.stt)
                let heardHere = try await sdk.transcribe(audio)
                print("serve remote transcript: \"\(heard.text)\" for \"\(clip.transcript)\"")
                #expect(heard.executedOn == .remote && heardHere.executedOn == .local)
                #expect(heard.text == heardHere.text)
                #expect(WordErrorRate(reference: clip.transcript, hypothesis: heard.text).rate < 0.35)
            }
        }

        @Test("On runanywhere serve, structured output is valid and a tool call comes back and is executed")
        func serveStructuredAndTools() async throws {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-remote-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            let server = try await Self.startServe(home: home)
            defer { server.kill() }
            let base = try #require(server.openAIBase, "the server did not start: \(server.errorOutput())")
            try await withSDK(models: []) { sdk in
                try sdk.registerRemoteModel(
                    id: "remote-llm",
                    baseURL: base,
                    remoteModelName: DefaultModelIds.llm,
                    apiKey: Self.key
                )
                try await sdk.loadModel("remote-llm")
                try await Self.structuredAndTools(sdk)
            }
        }

        /// Structured output against a real-world-shaped schema and a named tool call, remotely.
        static func structuredAndTools(_ sdk: RunAnywhereSDK) async throws {
            let schema = try JSONSchema(
                parsing: #"""
                    {"type": "object", "properties": {
                        "name": {"type": "string", "minLength": 1},
                        "age": {"type": "integer", "minimum": 0, "maximum": 150},
                        "email": {"type": "string", "maxLength": 40}},
                     "required": ["name", "age"], "additionalProperties": false}
                    """#
            )
            let structured = try await sdk.generateStructured(
                "Invent a person: their name, age and email address.",
                schema: schema,
                options: LLMGenerationOptions(maxTokens: 120, temperature: 0)
            )
            #expect(structured.isValid, "\(structured.text)")
            #expect(structured.generation.executedOn == .remote)

            let cities = Mutex<[String]>([])
            try sdk.tools.register(Self.weather) { arguments in
                cities.withLock { $0.append(arguments["city"]?.stringValue ?? "") }
                return ["temperature_c": 18, "sky": "cloudy"]
            }
            let result = try await sdk.generateWithTools(
                "What is the weather in Paris right now?",
                tools: [Self.weather],
                options: LLMGenerationOptions(maxTokens: 256, temperature: 0),
                toolOptions: ToolCallingOptions(toolChoice: .tool("get_weather"), maxIterations: 2)
            )
            let call = try #require(result.toolCalls.first)
            #expect(call.name == "get_weather")
            #expect(call.arguments["city"]?.stringValue?.isEmpty == false, "\(call.arguments)")
            #expect(cities.withLock { $0.count } == 1)
            #expect(result.toolResults.first?.isError == false)
            #expect(result.generation.executedOn == .remote)
        }

        @Test("On llama-cpp-python's server: text, stream, a raw prompt, structured output and a named tool call")
        func llamaCppPython() async throws {
            let (server, base) = try await Self.startLlamaCppPython()
            defer { server.kill() }
            try await withSDK(models: []) { sdk in
                try sdk.registerRemoteModel(id: "lcp", baseURL: base, remoteModelName: "smollm2")
                try await sdk.loadModel("lcp")
                let result = try await sdk.generate("Name three colors.", options: Self.options)
                #expect(result.executedOn == .remote && !result.text.isEmpty)
                var streamed = ""
                var final: LLMGenerationResult?
                for try await event in try await sdk.generateStream("Name three colors.", options: Self.options) {
                    switch event {
                    case .token(let text, _): streamed += text
                    case .completed(let done): final = done
                    }
                }
                #expect(streamed == result.text && final?.text == result.text)
                // llama-cpp-python streams no usage: a token is a chunk, and there are several.
                #expect((final?.generatedTokens ?? 0) > 1)
                var raw = Self.options
                raw.applyChatTemplate = false
                raw.maxTokens = 8
                let completion = try await sdk.generate("The capital of France is", options: raw)
                #expect(completion.executedOn == .remote && completion.finishReason == .length)
                // The schema goes as json_schema, is refused, and goes again as json_object.
                try await Self.structuredAndTools(sdk)
            }
        }

        @Test("Routing on real engines: a server killed mid-stream ends it with a typed error and the retry runs here")
        func killedMidStream() async throws {
            let (server, base) = try await Self.startLlamaCppPython()
            defer { server.kill() }
            try await withSDK { sdk in
                try sdk.registerRemoteModel(id: DefaultModelIds.llm, baseURL: base, remoteModelName: "smollm2")
                // One byte of budget: the local copy does not fit, so the server runs it first.
                sdk.routing = RoutingConfiguration(policy: .preferLocal, memoryBudgetBytes: 1)
                try await sdk.loadModel(DefaultModelIds.llm)
                var options = Self.options
                options.maxTokens = 400
                var received = ""
                let error = await #expect(throws: SDKException.self) {
                    for try await event in try await sdk.generateStream(
                        "Count from 1 to 300, one number a line.",
                        options: options
                    ) {
                        guard case .token(let text, _) = event else { continue }
                        if received.isEmpty { server.crash() }
                        received += text
                    }
                }
                #expect(!received.isEmpty)
                #expect(error?.code == .remoteUnreachable, "\(String(describing: error))")
                let retry = try await sdk.generate("Name three colors.", options: Self.options)
                #expect(retry.executedOn == .local && !retry.text.isEmpty)

                // prefer-remote with the server gone: this device, and no error.
                sdk.routing = RoutingConfiguration(policy: .preferRemote, retryUnreachableAfterSeconds: 0)
                let offline = try await sdk.generate("Name three colors.", options: Self.options)
                #expect(offline.executedOn == .local && offline.text == retry.text)
                // remote-only with the server gone: a typed error.
                sdk.routingPolicy = .remoteOnly
                await expectCode(.remoteUnreachable) { try await sdk.generate("Hi", options: Self.options) }
            }
        }

        @Test("The CLI registers a remote model, reports executed_on, and --routing picks the side")
        func cliRouting() async throws {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-remote-\(UUID().uuidString)")
            let client = FileManager.default.temporaryDirectory.appendingPathComponent("ra-remote-\(UUID().uuidString)")
            defer {
                try? FileManager.default.removeItem(at: home)
                try? FileManager.default.removeItem(at: client)
            }
            let server = try await Self.startServe(home: home)
            defer { server.kill() }
            let base = try #require(server.openAIBase, "the server did not start: \(server.errorOutput())")
            // The client home has the local default model too.
            let sdk = try RunAnywhereSDK(home: client, environment: .development, modules: allModules)
            var localModel = try DefaultModels.llm()
            localModel.lastUsedAt = nil
            try sdk.registerModel(localModel)
            await sdk.shutdown()

            let registered = try await onOwnThread {
                try cli(
                    [
                        "models", "register-remote", "--home", client.path, "--id", DefaultModelIds.llm,
                        "--base-url", base.absoluteString, "--remote-model", DefaultModelIds.llm,
                        "--api-key-env", "RA_TEST_REMOTE_KEY", "--json",
                    ],
                    environment: ["RA_TEST_REMOTE_KEY": Self.key]
                )
            }
            #expect(registered.status == 0, "\(registered.err)")
            #expect(!registered.out.contains(Self.key))
            let entry = try JSONValue(parsing: registered.out)
            #expect(entry["remote"]?["api_key_secret"]?.stringValue == "remote-\(DefaultModelIds.llm)-api-key")

            func run(_ routing: String) async throws -> (status: Int32, out: String, err: String) {
                try await onOwnThread {
                    try cli([
                        "generate", "--home", client.path, "--model", DefaultModelIds.llm, "--prompt", "Name a color.",
                        "--max-tokens", "8", "--temperature", "0", "--json", "--routing", routing,
                    ])
                }
            }
            let remote = try await run("prefer-remote")
            #expect(remote.status == 0, "\(remote.err)")
            #expect(try JSONValue(parsing: remote.out)["executed_on"]?.stringValue == "remote")
            let local = try await run("prefer-local")
            #expect(try JSONValue(parsing: local.out)["executed_on"]?.stringValue == "local")
            let bad = try await run("sometimes")
            #expect(bad.status != 0 && bad.err.contains("Unknown routing policy"))

            _ = try await onOwnThread { server.terminate() }
            let offline = try await run("prefer-remote")
            #expect(offline.status == 0, "\(offline.err)")
            #expect(try JSONValue(parsing: offline.out)["executed_on"]?.stringValue == "local")
            let refused = try await run("remote-only")
            #expect(refused.status != 0 && refused.err.contains("remote_unreachable"), "\(refused.err)")
        }
    }
}
