import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import RunAnywhereTesting
import Testing

/// Images on the chat routes (OpenAI's `image_url` parts, Ollama's `images`), answered by the
/// deterministic backend's vision-language model, whose replies depend on the image's bytes.
@Suite("Images on the OpenAI and Ollama routes", .serialized)
struct VisionRoutesTests {
    static let vlm = DeterministicModels.vlm
    static let options = LLMGenerationOptions(maxTokens: 12, temperature: 0, topK: 0, repetitionPenalty: 1)

    /// ``options`` as Ollama's `options`.
    static func ollamaOptions() -> [String: Any] {
        ["num_predict": 12, "temperature": 0, "top_k": 0, "top_p": 1, "repeat_penalty": 1]
    }

    static func imageMessage(_ text: String, _ url: String) -> [String: Any] {
        [
            "role": "user",
            "content": [["type": "text", "text": text], ["type": "image_url", "image_url": ["url": url]]],
        ]
    }

    static func content(_ reply: ServerReply) throws -> String {
        #expect(reply.status == 200, "\(reply.text)")
        let choice = try #require((try reply.json["choices"] as? [[String: Any]])?.first)
        return try #require((choice["message"] as? [String: Any])?["content"] as? String)
    }

    @Test("A vision-language model answers an image on /v1/chat/completions as the SDK does, whole and streamed")
    func openAIImages() async throws {
        try await withServer { client, sdk in
            let small = TestImages.pngDataURL(width: 8, height: 6)
            let large = TestImages.pngDataURL(width: 32, height: 24)
            func ask(_ url: String, stream: Bool = false) async throws -> ServerReply {
                try await client.post(
                    "/v1/chat/completions",
                    json: [
                        "model": Self.vlm, "messages": [Self.imageMessage("What is this?", url)], "max_tokens": 12,
                        "temperature": 0, "stream": stream,
                    ]
                )
            }
            let answer = try Self.content(try await ask(small))
            let direct = try await sdk.visionChat(
                [.user("What is this?", images: [try VLMImage(base64: small)])],
                options: Self.options
            )
            #expect(answer == direct.text)
            #expect(direct.imageTokens == 16)
            #expect(try Self.content(try await ask(large)) != answer, "another image, another answer")

            let streamed = try await ask(small, stream: true)
            #expect(streamed.status == 200, "\(streamed.text)")
            var text = ""
            for event in streamed.events.dropLast() {
                let chunk = try #require(try JSONSerialization.jsonObject(with: Data(event.utf8)) as? [String: Any])
                let choice = (chunk["choices"] as? [[String: Any]])?.first
                text += ((choice?["delta"] as? [String: Any])?["content"] as? String) ?? ""
            }
            #expect(text == answer)

            let plain = try await client.post(
                "/v1/chat/completions",
                json: ["model": Self.vlm, "messages": [["role": "user", "content": "Hello"]], "max_tokens": 12]
            )
            #expect(!(try Self.content(plain)).isEmpty, "the vision model answers text alone too")
            #expect(await sdk.currentVLMModel?.id == Self.vlm)
            #expect(await sdk.currentLLMModel == nil, "nothing went to the language model's slot")

            let list = try await client.get("/v1/models/\(Self.vlm)")
            #expect(try list.json["capabilities"] as? [String] == ["chat", "vision"])
        }
    }

    @Test(
        "Images to a language model, by URL, in another turn, or damaged, and tools on a VLM are 400s naming the field"
    )
    func openAIImageErrors() async throws {
        try await withServer { client, _ in
            let image = TestImages.pngDataURL(width: 8, height: 6)
            func post(_ body: [String: Any]) async throws -> ServerReply {
                try await client.post("/v1/chat/completions", json: body.merging(["max_tokens": 4]) { a, _ in a })
            }
            try await post(["model": DeterministicModels.llm, "messages": [Self.imageMessage("Hi", image)]])
                .expectError(400, code: "model_not_supported", param: "messages[0]")
            try await post(["model": Self.vlm, "messages": [Self.imageMessage("Hi", "https://example.com/cat.png")]])
                .expectError(400, param: "messages[0].content")
            try await post(["model": Self.vlm, "messages": [Self.imageMessage("Hi", "file:///etc/passwd")]])
                .expectError(400, param: "messages[0].content")
            let assistant: [String: Any] = [
                "role": "assistant", "content": [["type": "image_url", "image_url": ["url": image]]],
            ]
            try await post(["model": Self.vlm, "messages": [["role": "user", "content": "Hi"], assistant]])
                .expectError(400, param: "messages[1].content")
            let cut =
                "data:image/png;base64," + Data(TestImages.png(width: 8, height: 6).prefix(30)).base64EncodedString()
            try await post(["model": Self.vlm, "messages": [Self.imageMessage("Hi", cut)]])
                .expectError(400, code: "invalid_image", param: "messages[0]")
            try await post(["model": Self.vlm, "messages": [Self.imageMessage("Hi", "data:image/png;base64,!!!")]])
                .expectError(400, param: "messages[0].content")
            let tool: [String: Any] = [
                "type": "function", "function": ["name": "look", "parameters": ["type": "object"]],
            ]
            try await post(["model": Self.vlm, "messages": [Self.imageMessage("Hi", image)], "tools": [tool]])
                .expectError(400, code: "model_not_supported", param: "tools")
            // The server is still serving after all of it.
            let fine = try await post(["model": Self.vlm, "messages": [Self.imageMessage("Hi", image)]])
            #expect(fine.status == 200, "\(fine.text)")
        }
    }

    @Test("Ollama's images reach the vision model on /api/chat and /api/generate; a language model refuses them")
    func ollamaImages() async throws {
        try await withServer { client, sdk in
            let base64 = Data(TestImages.png(width: 8, height: 6)).base64EncodedString()
            let chat = try await client.post(
                "/api/chat",
                json: [
                    "model": Self.vlm, "stream": false, "options": Self.ollamaOptions(),
                    "messages": [["role": "user", "content": "What is this?", "images": [base64]]],
                ]
            )
            #expect(chat.status == 200, "\(chat.text)")
            let message = try #require(try chat.json["message"] as? [String: Any])
            let direct = try await sdk.visionChat(
                [.user("What is this?", images: [try VLMImage(base64: base64)])],
                options: Self.options
            )
            #expect(message["content"] as? String == direct.text)

            let generate = try await client.post(
                "/api/generate",
                json: [
                    "model": Self.vlm, "stream": false, "prompt": "What is this?", "images": [base64],
                    "options": Self.ollamaOptions(),
                ]
            )
            #expect(generate.status == 200, "\(generate.text)")
            #expect(try generate.json["response"] as? String == direct.text)

            let refused = try await client.post(
                "/api/generate",
                json: ["model": DeterministicModels.llm, "stream": false, "prompt": "Hi", "images": [base64]]
            )
            #expect(refused.status == 400, "\(refused.text)")
            #expect((try refused.json["error"] as? String)?.contains("vision-language") == true)
            let badImage = try await client.post(
                "/api/chat",
                json: [
                    "model": Self.vlm, "stream": false, "messages": [["role": "user", "content": "Hi", "images": [7]]],
                ]
            )
            #expect(badImage.status == 400, "\(badImage.text)")

            let show = try await client.post("/api/show", json: ["model": Self.vlm])
            #expect((try show.json["capabilities"] as? [String])?.contains("vision") == true)
        }
    }
}
