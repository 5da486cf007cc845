import AsyncHTTPClient
import Foundation
import NIOCore
import RealEngineTestSupport
import RunAnywhere
import Testing

/// `runanywhere serve` as users run it: the CLI in its own process with the default models,
/// driven by real clients.
extension RealEngineTests {
    @Suite("runanywhere serve with real models and real clients", .tags(.cli, .fuzz))
    struct ServeConformanceTests {
        static let key = "conformance-key"

        @Test(
            "The official OpenAI client, curl and a schemathesis fuzz run pass; a second load adds no memory; SIGTERM stops cleanly"
        )
        func conformance() async throws {
            try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-serve-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            let ids = [DefaultModelIds.llm, DefaultModelIds.embedding, DefaultModelIds.stt, DefaultModelIds.tts]
            try await Self.registerByReference(ids, home: home)
            let registryBefore = try Data(contentsOf: home.appendingPathComponent("registry.json"))

            // The fuzzer's boundary cases ask for the longest input at the slowest speed. Each digit
            // is a word: 300 zeros at 0.25 are 114 s of audio and took 11.7 s to synthesize idle,
            // past the 15 s request timeout on a busy CI machine. 40 (the warm-up sentence has 34)
            // bound it near 5 s.
            let server = try await onOwnThread {
                // A fuzzed /api/pull of an hf.co reference must not reach the real hub.
                try ServerProcess.start(
                    [
                        "serve", "--home", home.path, "--port", "0", "--api-key", Self.key, "--slots", "4",
                        "--context-length", "512", "--max-speech-chars", "40",
                    ],
                    environment: ["HF_ENDPOINT": "http://127.0.0.1:9/"]
                )
            }
            defer { server.kill() }
            let base = try #require(server.baseURL, "the server did not start: \(server.errorOutput())")
            let client = Client(base: base)

            // Warm-up: every model loads; the spoken answer becomes the transcription test's WAV.
            let speech = try await client.post(
                "v1/audio/speech",
                ["model": DefaultModelIds.tts, "input": "Please turn on the kitchen lights.", "voice": "default"]
            )
            try #require(speech.status == 200)
            let wav = home.appendingPathComponent("question.wav")
            try speech.body.write(to: wav)
            let chat = try await client.post(
                "v1/chat/completions",
                ["model": DefaultModelIds.llm, "messages": [["role": "user", "content": "Hi"]], "max_tokens": 8]
            )
            #expect(chat.status == 200)
            let embedded = try await client.post(
                "v1/embeddings",
                ["model": DefaultModelIds.embedding, "input": "warm"]
            )
            #expect(embedded.status == 200)
            let baseline = try #require(server.residentMegabytes())

            try await runConformance(base: base, wav: wav)
            // 120 s: 55 s of fuzzing and a 60 s request timeout, a guard against a hung request
            // only (a fuzzed chat request may generate to the end of its 512-token context, which
            // took longer than 15 s on a loaded machine).
            let fuzz = try await runScript("fuzz_server.sh", [base, Self.key, "120"])
            #expect(fuzz.status == 0, "\(fuzz.output.suffix(3000))\nserver: \(server.errorOutput().suffix(4000))")
            #expect(fuzz.output.contains("0 failures, 0 errors"), "\(fuzz.output.suffix(3000))")
            try await burst(client)
            let loaded = try #require(server.residentMegabytes())

            // The same load again: memory the first round left with the allocator is reused, so
            // a leak of requests or generations is what would make it grow.
            try await runConformance(base: base, wav: wav)
            try await burst(client)
            let again = try #require(server.residentMegabytes())
            print(
                "serve conformance: RSS \(baseline) MB warm, \(loaded) MB after the first load, \(again) MB after the second"
            )
            #expect(again < loaded + 60, "RSS \(loaded) MB after the first load, \(again) MB after the second")

            let status = try await onOwnThread { server.terminate() }
            #expect(status == 0, "\(server.errorOutput())")
            #expect(server.output().contains("Received SIGTERM: stopping."))
            #expect(
                try Data(contentsOf: home.appendingPathComponent("registry.json")).count >= registryBefore.count / 2
            )
            _ = try JSONSerialization.jsonObject(with: Data(contentsOf: home.appendingPathComponent("registry.json")))
        }

        /// The official OpenAI client's checks (and its curl SSE check), all of which must pass.
        private func runConformance(base: String, wav: URL) async throws {
            let conformance = try await runScript(
                "openai_conformance.py",
                [
                    "--base-url", base + "v1", "--api-key", Self.key, "--chat-model", DefaultModelIds.llm,
                    "--embedding-model", DefaultModelIds.embedding, "--stt-model", DefaultModelIds.stt,
                    "--tts-model", DefaultModelIds.tts, "--wav", wav.path,
                ],
                interpreter: "python3"
            )
            #expect(conformance.status == 0, "\(conformance.output.suffix(3000))")
            let summaryLine = try #require(
                conformance.output.split(separator: "\n").last { $0.hasPrefix("{") }
            )
            let summary = try json(summaryLine)
            #expect(summary["failed"] as? Int == 0)
            #expect((summary["passed"] as? Int ?? 0) >= 28)
        }

        /// 48 chat requests at once, beyond the 4 slots and the queue of 32: every answer is a
        /// completion or a 429, and no more than the excess is refused.
        private func burst(_ client: Client) async throws {
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<48 {
                    group.addTask {
                        try await client.post(
                            "v1/chat/completions",
                            [
                                "model": DefaultModelIds.llm, "max_tokens": 16, "stream": index % 2 == 0,
                                "messages": [["role": "user", "content": "Say something about \(index)."]],
                            ]
                        ).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 200 || $0 == 429 }, "\(statuses)")
            #expect(statuses.filter { $0 == 200 }.count >= 36, "\(statuses)")
        }

        @Test("Gemma 3 270M, the second family, through the server: a chat, a schema, a stream and Ollama's generate")
        func secondFamily() async throws {
            try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-serve-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            let gemma = "gemma3-270m"
            try await Self.registerByReference([gemma], home: home)
            let server = try await onOwnThread {
                try ServerProcess.start([
                    "serve", "--home", home.path, "--port", "0", "--api-key", Self.key, "--context-length", "1024",
                ])
            }
            defer { server.kill() }
            let base = try #require(server.baseURL, "the server did not start: \(server.errorOutput())")
            let client = Client(base: base)
            func object(_ data: Data) throws -> [String: Any] {
                try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            }
            let messages = [["role": "user", "content": "Name a city in Norway."]]
            let chat = try await client.post(
                "v1/chat/completions",
                ["model": gemma, "messages": messages, "max_tokens": 16, "temperature": 0]
            )
            #expect(chat.status == 200, "\(String(decoding: chat.body, as: UTF8.self))")
            let reply = try object(chat.body)
            let choice = try #require((reply["choices"] as? [[String: Any]])?.first)
            #expect(((choice["message"] as? [String: Any])?["content"] as? String)?.isEmpty == false)
            let schema: [String: Any] = [
                "type": "object", "properties": ["city": ["type": "string", "maxLength": 20]], "required": ["city"],
            ]
            let structured = try await client.post(
                "v1/chat/completions",
                [
                    "model": gemma, "messages": messages, "max_tokens": 40, "temperature": 0,
                    "response_format": [
                        "type": "json_schema", "json_schema": ["name": "city", "schema": schema, "strict": true],
                    ],
                ]
            )
            #expect(structured.status == 200)
            let content = try #require(
                (((try object(structured.body))["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?[
                    "content"
                ] as? String
            )
            #expect((try object(Data(content.utf8))["city"] as? String) != nil, "\(content)")
            let streamed = try await client.post(
                "v1/chat/completions",
                ["model": gemma, "messages": messages, "max_tokens": 12, "stream": true]
            )
            let events = String(decoding: streamed.body, as: UTF8.self)
            #expect(streamed.status == 200 && events.contains("\"content\"") && events.hasSuffix("data: [DONE]\n\n"))
            let ollama = try await client.post(
                "api/generate",
                ["model": gemma, "prompt": "The capital of Norway is", "stream": false, "options": ["num_predict": 8]]
            )
            #expect(ollama.status == 200)
            let generated = try object(ollama.body)
            #expect(generated["done"] as? Bool == true && (generated["response"] as? String)?.isEmpty == false)
            #expect((generated["eval_count"] as? Int ?? 0) > 0)
        }

        /// Registers default models by reference in a fresh home, as `withSDK` does.
        static func registerByReference(_ ids: [String], home: URL) async throws {
            let sdk = try RunAnywhereSDK(home: home, environment: .development, modules: allModules)
            for id in ids {
                var model = try DefaultModels.model(id)
                model.lastUsedAt = nil
                try sdk.registerModel(model)
            }
            await sdk.shutdown()
        }
    }
}

/// Requests through AsyncHTTPClient with the test key.
private struct Client: Sendable {
    let base: String

    func post(_ path: String, _ body: [String: Any]) async throws -> (status: Int, body: Data) {
        var request = HTTPClientRequest(url: base + path)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(RealEngineTests.ServeConformanceTests.key)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))
        let data = try await response.body.collect(upTo: 64 << 20)
        return (Int(response.status.code), Data(buffer: data))
    }
}
