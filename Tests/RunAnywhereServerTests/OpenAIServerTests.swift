import AsyncHTTPClient
import Foundation
import NIOCore
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTesting
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Serialized: each test starts a server, and some open raw sockets; one at a time keeps the
/// load on the machine's two cores (and Swift's two cooperative threads) small.
@Suite("OpenAI-compatible server on the deterministic backend", .serialized)
struct OpenAIServerTests {
    let llm = DeterministicModels.llm

    @Test("The model list offers the served kinds with their capabilities, and a model reads by id")
    func modelList() async throws {
        try await withServer { client, _ in
            let list = try await client.get("/v1/models")
            #expect(list.status == 200)
            #expect(try list.json["object"] as? String == "list")
            let data = try #require(try list.json["data"] as? [[String: Any]])
            let ids = Set(data.compactMap { $0["id"] as? String })
            #expect(
                ids.isSuperset(of: [
                    llm, DeterministicModels.embedding, DeterministicModels.stt, DeterministicModels.tts,
                ])
            )
            #expect(!ids.contains(DeterministicModels.vad), "VAD models are not served")
            let chat = try #require(data.first { $0["id"] as? String == llm })
            #expect(chat["object"] as? String == "model")
            #expect(chat["created"] is Int)
            #expect(chat["owned_by"] is String)
            #expect(chat["capabilities"] as? [String] == ["chat", "completions"])
            let one = try await client.get("/v1/models/\(llm)")
            #expect(try one.json["id"] as? String == llm)
            try await client.get("/v1/models/nope").expectError(404, code: "model_not_found")
        }
    }

    @Test("A chat completion answers in OpenAI's shape, with usage that adds up")
    func chatCompletion() async throws {
        try await withServer { client, sdk in
            let reply = try await client.post(
                "/v1/chat/completions",
                json: [
                    "model": llm, "messages": [["role": "user", "content": "Hello there"]], "max_tokens": 12,
                    "temperature": 0, "user": "ignored", "logit_bias": ["1": 2],
                ]
            )
            #expect(reply.status == 200, "\(reply.text)")
            let json = try reply.json
            #expect(json["object"] as? String == "chat.completion")
            #expect((json["id"] as? String)?.hasPrefix("chatcmpl-") == true)
            #expect(json["model"] as? String == llm)
            let choice = try #require((json["choices"] as? [[String: Any]])?.first)
            let message = try #require(choice["message"] as? [String: Any])
            #expect(message["role"] as? String == "assistant")
            let content = try #require(message["content"] as? String)
            let direct = try await sdk.chat(
                [.user("Hello there")],
                options: LLMGenerationOptions(maxTokens: 12, temperature: 0, topK: 0, repetitionPenalty: 1)
            )
            #expect(content == direct.text)
            #expect(["stop", "length"].contains(choice["finish_reason"] as? String))
            let usage = try #require(json["usage"] as? [String: Int])
            #expect(usage["prompt_tokens"]! > 0)
            #expect(usage["completion_tokens"]! > 0 && usage["completion_tokens"]! <= 12)
            #expect(usage["total_tokens"] == usage["prompt_tokens"]! + usage["completion_tokens"]!)
        }
    }

    @Test("A streamed chat sends the role first, text deltas, one finish reason, usage last, then [DONE]")
    func chatStream() async throws {
        try await withServer { client, _ in
            let body: [String: Any] = [
                "model": llm, "messages": [["role": "user", "content": "Tell me about rivers"]], "max_tokens": 20,
                "temperature": 0,
            ]
            let whole = try await client.post("/v1/chat/completions", json: body)
            let expected = try #require(
                ((try whole.json["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"]
                    as? String
            )
            var streaming = body
            streaming["stream"] = true
            streaming["stream_options"] = ["include_usage": true]
            let reply = try await client.post("/v1/chat/completions", json: streaming)
            #expect(reply.status == 200)
            #expect(reply.headers.first(name: "content-type")?.hasPrefix("text/event-stream") == true)
            let events = reply.events
            #expect(events.last == "[DONE]")
            let chunks = try events.dropLast().map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect(chunks.allSatisfy { $0["object"] as? String == "chat.completion.chunk" })
            #expect(Set(chunks.compactMap { $0["id"] as? String }).count == 1)
            let choices = chunks.compactMap { ($0["choices"] as? [[String: Any]])?.first }
            let deltas = choices.compactMap { $0["delta"] as? [String: Any] }
            #expect(deltas.first?["role"] as? String == "assistant")
            #expect(deltas.compactMap { $0["content"] as? String }.joined() == expected)
            #expect(choices.filter { $0["finish_reason"] is String }.count == 1)
            let usageChunk = try #require(chunks.last)
            #expect((usageChunk["choices"] as? [Any])?.isEmpty == true)
            #expect((usageChunk["usage"] as? [String: Int])?["completion_tokens"] ?? 0 > 0)
            #expect(chunks.dropLast().allSatisfy { $0["usage"] is NSNull })
        }
    }

    @Test("A json_schema response format gives JSON valid against the schema, whole and streamed")
    func jsonSchema() async throws {
        try await withServer { client, _ in
            let schema: [String: Any] = [
                "type": "object",
                "properties": ["name": ["type": "string"], "age": ["type": "integer", "minimum": 0]],
                "required": ["name", "age"], "additionalProperties": false,
            ]
            var body: [String: Any] = [
                "model": llm, "messages": [["role": "user", "content": "A person"]], "max_tokens": 200,
                "response_format": [
                    "type": "json_schema", "json_schema": ["name": "person", "schema": schema, "strict": true],
                ],
            ]
            let reply = try await client.post("/v1/chat/completions", json: body)
            #expect(reply.status == 200, "\(reply.text)")
            let content = try #require(
                ((try reply.json["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"]
                    as? String
            )
            let object = try #require(try JSONSerialization.jsonObject(with: Data(content.utf8)) as? [String: Any])
            #expect(object["name"] is String)
            #expect((object["age"] as? Int ?? -1) >= 0)
            #expect(object.count == 2)
            body["stream"] = true
            let streamed = try await client.post("/v1/chat/completions", json: body)
            let text = try streamed.events.dropLast().compactMap {
                let chunk = try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                return ((chunk?["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any])?["content"]
                    as? String
            }.joined()
            #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
        }
    }

    /// An OpenAI-style definition of a weather tool that takes a city.
    static func weatherTool(named name: String) -> [String: Any] {
        [
            "type": "function",
            "function": [
                "name": name, "description": "Weather for a city",
                "parameters": ["type": "object", "properties": ["city": ["type": "string"]], "required": ["city"]],
            ],
        ]
    }

    @Test("/apply-template answers the prompt a chat completion would evaluate, tools included, and checks the request")
    func applyTemplate() async throws {
        try await withServer { client, sdk in
            let question: [String: Any] = ["role": "user", "content": "What is the weather in Oslo?"]
            let plain = try await client.post("/apply-template", json: ["model": llm, "messages": [question]])
            #expect(plain.status == 200, "\(plain.text)")
            let prompt = try #require(try plain.json["prompt"] as? String)
            #expect(prompt == (try await sdk.formatPrompt([.user("What is the weather in Oslo?")])))
            #expect(prompt.contains("What is the weather in Oslo?"))

            let withTools = try await client.post(
                "/apply-template",
                json: ["model": llm, "messages": [question], "tools": [Self.weatherTool(named: "get_weather")]]
            )
            #expect(withTools.status == 200, "\(withTools.text)")
            let toolPrompt = try #require(try withTools.json["prompt"] as? String)
            #expect(toolPrompt.contains("get_weather"))
            #expect(toolPrompt != prompt)

            try await client.post("/apply-template", json: ["model": llm, "messages": [["role": "robot"]]])
                .expectError(400)
            try await client.post("/apply-template", json: ["model": "no-such-model", "messages": [question]])
                .expectError(404)
            try await client.keyless.post("/apply-template", json: ["model": llm, "messages": [question]])
                .expectError(401)
        }
    }

    @Test("A forced tool call comes back as tool_calls, and the tool's result gets a text answer")
    func toolCallRoundTrip() async throws {
        try await withServer { client, _ in
            let tools = [Self.weatherTool(named: "get_weather")]
            let question: [String: Any] = ["role": "user", "content": "Weather in Paris?"]
            let reply = try await client.post(
                "/v1/chat/completions",
                json: [
                    "model": llm, "messages": [question], "tools": tools, "max_tokens": 64,
                    "tool_choice": ["type": "function", "function": ["name": "get_weather"]],
                ]
            )
            #expect(reply.status == 200, "\(reply.text)")
            let choice = try #require((try reply.json["choices"] as? [[String: Any]])?.first)
            #expect(choice["finish_reason"] as? String == "tool_calls")
            let message = try #require(choice["message"] as? [String: Any])
            let call = try #require((message["tool_calls"] as? [[String: Any]])?.first)
            let function = try #require(call["function"] as? [String: Any])
            #expect(function["name"] as? String == "get_weather")
            let arguments = try #require(function["arguments"] as? String)
            let parsed = try JSONSerialization.jsonObject(with: Data(arguments.utf8)) as? [String: Any]
            #expect(parsed?["city"] is String)
            let id = try #require(call["id"] as? String)
            let answer = try await client.post(
                "/v1/chat/completions",
                json: [
                    "model": llm, "tools": tools, "max_tokens": 24,
                    "messages": [
                        question, message, ["role": "tool", "tool_call_id": id, "content": "{\"temp_c\": 21}"],
                    ],
                    "tool_choice": "none",
                ]
            )
            #expect(answer.status == 200, "\(answer.text)")
            let final = try #require((try answer.json["choices"] as? [[String: Any]])?.first)
            #expect(["stop", "length"].contains(final["finish_reason"] as? String))
            #expect(((final["message"] as? [String: Any])?["content"] as? String)?.isEmpty == false)
            // A tool result that answers no call is refused.
            try await client.post(
                "/v1/chat/completions",
                json: ["model": llm, "messages": [question, ["role": "tool", "tool_call_id": "x", "content": "1"]]]
            ).expectError(400, param: "messages[1].tool_call_id")
        }
    }

    @Test("A streamed call sends its id and name first, then its arguments in pieces that join into the whole reply's")
    func toolCallStream() async throws {
        try await withServer { client, _ in
            var body: [String: Any] = [
                "model": llm, "messages": [["role": "user", "content": "Weather in Paris?"]],
                "tools": [Self.weatherTool(named: "get_weather")], "max_tokens": 64, "temperature": 0,
                "tool_choice": ["type": "function", "function": ["name": "get_weather"]],
            ]
            let whole = try await client.post("/v1/chat/completions", json: body)
            let message = (try (whole.json["choices"] as? [[String: Any]])?.first)?["message"] as? [String: Any]
            let expected = try #require(
                ((message?["tool_calls"] as? [[String: Any]])?.first?["function"] as? [String: Any])?["arguments"]
                    as? String
            )
            body["stream"] = true
            let streamed = try await client.post("/v1/chat/completions", json: body)
            #expect(streamed.status == 200, "\(streamed.text)")
            #expect(streamed.events.last == "[DONE]")
            var pieces: [[String: Any]] = []
            var finish: String?
            for event in streamed.events.dropLast() {
                let chunk = try #require(try JSONSerialization.jsonObject(with: Data(event.utf8)) as? [String: Any])
                let choice = (chunk["choices"] as? [[String: Any]])?.first
                finish = (choice?["finish_reason"] as? String) ?? finish
                let delta = choice?["delta"] as? [String: Any]
                pieces += (delta?["tool_calls"] as? [[String: Any]]) ?? []
            }
            #expect(finish == "tool_calls")
            let first = try #require(pieces.first)
            #expect(first["index"] as? Int == 0)
            #expect((first["id"] as? String)?.hasPrefix("call_") == true)
            #expect(first["type"] as? String == "function")
            #expect((first["function"] as? [String: Any])?["name"] as? String == "get_weather")
            #expect((first["function"] as? [String: Any])?["arguments"] as? String == "")
            let rest = pieces.dropFirst()
            #expect(rest.count > 1, "the arguments come in pieces as the model writes them")
            #expect(rest.allSatisfy { $0["index"] as? Int == 0 && $0["id"] == nil })
            let joined = rest.compactMap { ($0["function"] as? [String: Any])?["arguments"] as? String }.joined()
            let parsedJoined = try JSONSerialization.jsonObject(with: Data(joined.utf8)) as? NSDictionary
            let parsedWhole = try JSONSerialization.jsonObject(with: Data(expected.utf8)) as? NSDictionary
            #expect(parsedJoined == parsedWhole, "\(joined) against \(expected)")
        }
    }

    @Test(
        "A call the token limit cuts is no client error: the reply ends with finish_reason length; parallel_tool_calls false gives one call"
    )
    func cutAndSingleToolCalls() async throws {
        try await withServer { client, _ in
            let tools = [Self.weatherTool(named: "weather.get")]
            let question: [String: Any] = ["role": "user", "content": "What is the weather in Oslo?"]
            // Six tokens cannot hold a whole call: whatever was written of it is dropped.
            let cut = try await client.post(
                "/v1/chat/completions",
                json: [
                    "model": llm, "messages": [question], "tools": tools, "tool_choice": "required", "max_tokens": 6,
                ]
            )
            #expect(cut.status == 200, "\(cut.text)")
            let cutChoice = try #require((try cut.json["choices"] as? [[String: Any]])?.first)
            #expect(cutChoice["finish_reason"] as? String == "length")
            #expect((cutChoice["message"] as? [String: Any])?["tool_calls"] == nil)
            for seed in 1...6 {
                let reply = try await client.post(
                    "/v1/chat/completions",
                    json: [
                        "model": llm, "messages": [question], "tools": tools, "tool_choice": "required",
                        "parallel_tool_calls": false, "max_tokens": 400, "seed": seed, "temperature": 1,
                    ]
                )
                #expect(reply.status == 200, "\(reply.text)")
                let choice = try #require((try reply.json["choices"] as? [[String: Any]])?.first)
                let calls = (choice["message"] as? [String: Any])?["tool_calls"] as? [[String: Any]]
                #expect(calls?.count == 1, "seed \(seed): \(reply.text)")
                #expect((calls?.first?["function"] as? [String: Any])?["name"] as? String == "weather.get")
            }
            try await client.post(
                "/v1/chat/completions",
                json: ["model": llm, "messages": [question], "tools": tools, "parallel_tool_calls": "no"]
            ).expectError(400)
        }
    }

    @Test("Legacy completions answer text_completion, whole and streamed")
    func legacyCompletions() async throws {
        try await withServer { client, _ in
            let reply = try await client.post(
                "/v1/completions",
                json: ["model": llm, "prompt": "Once upon a time", "max_tokens": 8, "temperature": 0]
            )
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try reply.json["object"] as? String == "text_completion")
            let text = try #require((try reply.json["choices"] as? [[String: Any]])?.first?["text"] as? String)
            #expect(!text.isEmpty)
            let streamed = try await client.post(
                "/v1/completions",
                json: ["model": llm, "prompt": "Once upon a time", "max_tokens": 8, "temperature": 0, "stream": true]
            )
            #expect(streamed.events.last == "[DONE]")
            let joined = try streamed.events.dropLast().compactMap {
                let chunk = try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                return (chunk?["choices"] as? [[String: Any]])?.first?["text"] as? String
            }.joined()
            #expect(joined == text)
        }
    }

    @Test("Embeddings come as floats or base64 of the same little-endian floats")
    func embeddings() async throws {
        try await withServer { client, _ in
            let floats = try await client.post(
                "/v1/embeddings",
                json: ["model": DeterministicModels.embedding, "input": ["a cat", "a dog", "the sea"]]
            )
            #expect(floats.status == 200, "\(floats.text)")
            let data = try #require(try floats.json["data"] as? [[String: Any]])
            #expect(data.map { $0["index"] as? Int } == [0, 1, 2])
            let vectors = data.compactMap { ($0["embedding"] as? [NSNumber])?.map(\.floatValue) }
            #expect(vectors.count == 3 && vectors.allSatisfy { $0.count == vectors[0].count && !$0.isEmpty })
            #expect(((try floats.json["usage"] as? [String: Int])?["prompt_tokens"] ?? 0) > 0)
            let base64 = try await client.post(
                "/v1/embeddings",
                json: ["model": DeterministicModels.embedding, "input": "a cat", "encoding_format": "base64"]
            )
            let encoded = try #require((try base64.json["data"] as? [[String: Any]])?.first?["embedding"] as? String)
            let bytes = try #require(Data(base64Encoded: encoded))
            let decoded = stride(from: 0, to: bytes.count, by: 4).map { offset in
                Float(
                    bitPattern: bytes[offset..<offset + 4].enumerated().reduce(UInt32(0)) {
                        $0 | UInt32($1.1) << (8 * $1.0)
                    }
                )
            }
            #expect(decoded == vectors[0])
            try await client.post(
                "/v1/embeddings",
                json: ["model": DeterministicModels.embedding, "input": [1, 2, 3]]
            ).expectError(400, param: "input")
            try await client.post("/v1/embeddings", json: ["model": llm, "input": "x"])
                .expectError(400, code: "model_not_supported")
        }
    }

    @Test("Transcriptions answer json, text, verbose_json, srt and vtt; a file that is not audio is a 400")
    func transcriptions() async throws {
        try await withServer { client, _ in
            let wav = WAVFile.encode(DeterministicBackend.speech(for: "turn on the lights"))
            func transcribe(_ format: String, file: Data? = nil) async throws -> ServerReply {
                let boundary = "b\(UUID().uuidString)"
                let body = ServerClient.multipart(
                    fields: [("model", DeterministicModels.stt), ("response_format", format)],
                    file: file ?? wav,
                    boundary: boundary
                )
                return try await client.post(
                    "/v1/audio/transcriptions",
                    raw: body,
                    contentType: "multipart/form-data; boundary=\(boundary)"
                )
            }
            #expect(try await transcribe("json").json["text"] as? String == "turn on the lights")
            #expect(try await transcribe("text").text == "turn on the lights\n")
            let verbose = try await transcribe("verbose_json").json
            #expect(verbose["duration"] is Double)
            let segments = try #require(verbose["segments"] as? [[String: Any]])
            #expect(!segments.isEmpty && segments.allSatisfy { $0["start"] is Double && $0["end"] is Double })
            let srt = try await transcribe("srt").text
            #expect(srt.contains(/^1\n\d\d:\d\d:\d\d,\d\d\d --> \d\d:\d\d:\d\d,\d\d\d\nturn on the lights\n/), "\(srt)")
            let vtt = try await transcribe("vtt").text
            #expect(vtt.contains(/^WEBVTT\n\n\d\d:\d\d:\d\d\.\d\d\d --> \d\d:\d\d:\d\d\.\d\d\d\n/), "\(vtt)")
            try await transcribe("json", file: Data("this is not audio at all".utf8))
                .expectError(400, code: "invalid_audio", param: "file")
            try await transcribe("mp4").expectError(400, param: "response_format")
            try await client.post("/v1/audio/transcriptions", json: ["model": DeterministicModels.stt])
                .expectError(400, code: "invalid_form")

            // Bytes of 128 and more in a header name made multipart-kit trap and the server
            // die (found by schemathesis); a non-ASCII file name in a header value is fine.
            let boundary = "6b307be81c4afcf399f09dcb3ab85c61"
            var fuzzed = Data("--\(boundary)\r\n".utf8)
            fuzzed.append(contentsOf: [0xC3, 0xA2, 0xF1, 0x8A, 0xA1, 0xA4, 0x3C, 0x0B, 0xC2, 0x92, 0x3A, 0x17])
            fuzzed.append(Data("--\(boundary)--\r\n".utf8))
            let valid = ServerClient.multipart(
                fields: [("model", DeterministicModels.stt)],
                file: wav,
                boundary: boundary
            )
            var laterPart = valid.dropLast(Data("--\(boundary)--\r\n".utf8).count)
            laterPart.append(Data("--\(boundary)\r\nNämé: x\r\n\r\ny\r\n--\(boundary)--\r\n".utf8))
            var utf8Name = valid
            utf8Name.replace(Data("filename=\"".utf8), with: Data("filename=\"Frühstück-".utf8))
            for body in [fuzzed, Data(laterPart)] {
                try await client.post(
                    "/v1/audio/transcriptions",
                    raw: body,
                    contentType: "multipart/form-data; boundary=\(boundary)"
                ).expectError(400, code: "invalid_form")
            }
            let named = try await client.post(
                "/v1/audio/transcriptions",
                raw: utf8Name,
                contentType: "multipart/form-data; boundary=\(boundary)"
            )
            #expect(try named.json["text"] as? String == "turn on the lights")
            // A megabyte of empty parts (about eight times its size to the parser) is refused
            // from a count of its delimiters; the same form with its fields is read.
            var manyParts = Data()
            for _ in 0..<(1 << 20) / 40 { manyParts.append(Data("--\(boundary)\r\n\r\n\r\n".utf8)) }
            manyParts.append(valid)
            let crowded = try await client.post(
                "/v1/audio/transcriptions",
                raw: manyParts,
                contentType: "multipart/form-data; boundary=\(boundary)"
            )
            try crowded.expectError(400, code: "invalid_form")
            #expect(crowded.text.contains("more than 32 parts"), "\(crowded.text)")
            #expect(try await client.get("/health").status == 200)
        }
    }

    @Test("Speech comes as WAV or 24 kHz PCM; other formats are refused")
    func speech() async throws {
        try await withServer { client, _ in
            let body: [String: Any] = ["model": DeterministicModels.tts, "input": "Hello there.", "voice": "alloy"]
            let wav = try await client.post("/v1/audio/speech", json: body)
            #expect(wav.status == 200)
            #expect(wav.body.prefix(4) == Data("RIFF".utf8))
            let audio = try WAVFile.decode(wav.body)
            #expect(audio.duration > 0.1)
            var pcmBody = body
            pcmBody["response_format"] = "pcm"
            let pcm = try await client.post("/v1/audio/speech", json: pcmBody)
            #expect(pcm.status == 200)
            #expect(pcm.body.count % 2 == 0)
            // 24 kHz, 16-bit mono: the same duration as the WAV within a few samples.
            #expect(abs(Double(pcm.body.count / 2) / 24_000 - audio.duration) < 0.01)
            var mp3 = body
            mp3["response_format"] = "mp3"
            try await client.post("/v1/audio/speech", json: mp3).expectError(400, param: "response_format")
        }
    }

    @Test("Bad requests get error objects with the right status and the field at fault")
    func badRequests() async throws {
        try await withServer { client, _ in
            let messages = [["role": "user", "content": "Hi"]]
            try await client.post("/v1/chat/completions", raw: Data("{not json".utf8)).expectError(400)
            try await client.post("/v1/chat/completions", raw: Data()).expectError(400)
            try await client.post("/v1/chat/completions", json: ["model": llm, "messages": "Hi"])
                .expectError(400, param: "messages")
            try await client.post("/v1/chat/completions", json: ["model": 5, "messages": messages])
                .expectError(400, param: "model")
            try await client.post("/v1/chat/completions", json: ["messages": messages])
                .expectError(400, param: "model")
            try await client.post("/v1/chat/completions", json: ["model": llm, "messages": messages, "max_tokens": -1])
                .expectError(400, param: "max_tokens")
            try await client.post("/v1/chat/completions", json: ["model": llm, "messages": messages, "n": 2])
                .expectError(400, param: "n")
            try await client.post("/v1/chat/completions", json: ["model": llm, "messages": messages, "temperature": 9])
                .expectError(400, param: "temperature")
            try await client.post("/v1/chat/completions", json: ["model": llm, "messages": []])
                .expectError(400, param: "messages")
            try await client.post(
                "/v1/chat/completions",
                json: ["model": llm, "messages": [["role": "wizard", "content": "x"]]]
            )
            .expectError(400, param: "messages[0].role")
            try await client.post(
                "/v1/chat/completions",
                json: ["model": llm, "messages": [["role": "user", "content": [["type": "image_url"]]]]]
            ).expectError(400, param: "messages[0].content")
            try await client.post("/v1/chat/completions", json: ["model": "missing", "messages": messages])
                .expectError(404, code: "model_not_found")
            try await client.post(
                "/v1/chat/completions",
                json: ["model": DeterministicModels.embedding, "messages": messages]
            )
            .expectError(400, code: "model_not_supported")
            try await client.post(
                "/v1/chat/completions",
                json: ["model": llm, "messages": messages, "stream_options": ["include_usage": true]]
            ).expectError(400, param: "stream_options")
            try await client.post(
                "/v1/chat/completions",
                json: ["model": llm, "messages": messages, "reasoning_effort": "extreme"]
            ).expectError(400, param: "reasoning_effort")
            let thinkingOff: [String: Any] = [
                "model": llm, "messages": messages, "max_tokens": 4, "reasoning_effort": "high",
                "chat_template_kwargs": ["enable_thinking": false],
            ]
            #expect(try await client.post("/v1/chat/completions", json: thinkingOff).status == 200)
            try await client.get("/v1/nothing-here").expectError(404)
            // The server still answers.
            #expect(try await client.get("/v1/models").status == 200)
        }
    }

    @Test("A prompt beyond the context is a 400 with context_length_exceeded")
    func promptBeyondContext() async throws {
        try await withServer(OpenAIServerConfiguration(contextLength: 64)) { client, _ in
            let long = String(repeating: "word ", count: 2000)
            try await client.post(
                "/v1/chat/completions",
                json: ["model": llm, "messages": [["role": "user", "content": long]]]
            )
            .expectError(400, code: "context_length_exceeded")
        }
    }

    @Test("Bodies over the limit get 413, whether Content-Length says so or not")
    func bodyLimit() async throws {
        try await withServer(OpenAIServerConfiguration(apiKey: "test-key", maxBodyBytes: 64 << 10), over: .http) {
            client,
            _ in
            let big = Data(repeating: UInt8(ascii: "a"), count: 100 << 20)
            try await client.post("/v1/chat/completions", raw: big).expectError(413, code: "request_too_large")
            // Streamed without a length.
            var request = client.request(.POST, "/v1/embeddings", headers: [("Content-Type", "application/json")])
            let chunk = ByteBuffer(repeating: UInt8(ascii: "a"), count: 16 << 10)
            request.body = .stream(
                AsyncStream { continuation in
                    for _ in 0..<16 { continuation.yield(chunk) }
                    continuation.finish()
                },
                length: .unknown
            )
            try await client.send(request).expectError(413)
            #expect(try await client.get("/v1/models").status == 200)
        }
    }

    @Test("Every /v1 route needs the key; health, metrics and the OpenAPI document do not")
    func authentication() async throws {
        try await withServer { client, _ in
            let keyless = client.keyless
            try await keyless.get("/v1/models").expectError(401, code: "invalid_api_key")
            try await client.get("/v1/models", key: "wrong-key").expectError(401, code: "invalid_api_key")
            try await keyless.post("/v1/chat/completions", json: ["model": llm]).expectError(401)
            #expect(try await keyless.get("/health").status == 200)
            #expect(try await keyless.get("/metrics").status == 200)
            let document = try await keyless.get("/openapi.json").json
            #expect(document["openapi"] as? String == "3.0.3")
            let paths = try #require(document["paths"] as? [String: Any])
            #expect(paths.keys.contains("/v1/chat/completions"))
            // The offered ids are the request's model enum.
            let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any]
            let chat = schemas?["CreateChatCompletionRequest"] as? [String: Any]
            let model = (chat?["properties"] as? [String: Any])?["model"] as? [String: Any]
            #expect(model?["enum"] as? [String] == [llm, DeterministicModels.vlm])
        }
    }

    @Test("No spelling of a path reaches a keyed route without the key", arguments: PathSpelling.allCases)
    func authenticationSpellings(spelling: PathSpelling) async throws {
        try await withServer(over: .http) { client, _ in
            let port = try #require(URL(string: client.base)?.port)
            let guarded = client.routes.filter { !Self.openRoutes.contains($0) }
            #expect(guarded.count >= 7, "\(client.routes)")
            for route in guarded {
                let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                let (method, template) = (parts[0], parts[1])
                let path = spelling.spell(template.replacingOccurrences(of: "{model}", with: llm))
                let status = try await rawStatus(port: port, method: method, path: path)
                #expect(status == 401 || status == 404, "\(method) \(path) answered \(status) without a key")
            }
        }
    }

    @Test("Every route but health, metrics and the OpenAPI document refuses a request without the key")
    func everyRouteIsGuarded() async throws {
        try await withServer(over: .http) { client, _ in
            let port = try #require(URL(string: client.base)?.port)
            #expect(Set(client.routes).isSuperset(of: Self.openRoutes), "\(client.routes)")
            for route in client.routes where !Self.openRoutes.contains(route) {
                let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                let path = parts[1].replacingOccurrences(of: "{model}", with: llm)
                // A route added outside the key's route group answers something else here.
                #expect(try await rawStatus(port: port, method: parts[0], path: path) == 401, "\(route)")
                // With the key the same request reaches the route (which may then refuse the body).
                let keyed = try await rawStatus(port: port, method: parts[0], path: path, key: "test-key")
                #expect(keyed != 401 && keyed != 404, "\(route) answered \(keyed) with the key")
            }
        }
    }

    @Test("The OpenAPI document describes every route the server answers, and no other")
    func documentMatchesRoutes() async throws {
        try await withServer { client, _ in
            let document = try await client.get("/openapi.json").json
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            let methods: Set<String> = ["get", "post", "put", "patch", "delete"]
            let documented = Set(
                paths.flatMap { path, operations in
                    operations.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" }
                }
            )
            #expect(
                documented == Set(client.routes),
                "only routed: \(Set(client.routes).subtracting(documented)); only documented: \(documented.subtracting(client.routes))"
            )
        }
    }

    /// The routes open without the key: they serve no model.
    static let openRoutes: Set<String> = ["GET /health", "GET /metrics", "GET /openapi.json"]

    @Test("Serving beyond loopback without a key comes with a warning")
    func exposureWarning() {
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"] {
            #expect(OpenAIServerConfiguration(host: host).isLoopbackOnly, "\(host)")
            #expect(OpenAIServerConfiguration(host: host).exposureWarning == nil, "\(host)")
        }
        for host in ["0.0.0.0", "::", "192.168.1.5", "127.0.0.1.example.com", "example.com"] {
            #expect(!OpenAIServerConfiguration(host: host).isLoopbackOnly, "\(host)")
            #expect(OpenAIServerConfiguration(host: host).exposureWarning?.contains("RUNANYWHERE_API_KEY") == true)
            #expect(OpenAIServerConfiguration(host: host, apiKey: "k").exposureWarning == nil)
        }
    }

    @Test("CORS headers are sent only for the configured origin")
    func cors() async throws {
        try await withServer { client, _ in
            let reply = try await client.get("/v1/models", headers: [("Origin", "https://a.example")])
            #expect(reply.headers.first(name: "access-control-allow-origin") == nil)
        }
        try await withServer(OpenAIServerConfiguration(apiKey: "test-key", corsOrigin: "https://a.example")) {
            client,
            _ in
            let reply = try await client.get("/v1/models", headers: [("Origin", "https://a.example")])
            #expect(reply.headers.first(name: "access-control-allow-origin") == "https://a.example")
        }
    }

    @Test("Metrics count requests and tokens in Prometheus text")
    func metrics() async throws {
        try await withServer { client, _ in
            _ = try await client.post(
                "/v1/chat/completions",
                json: ["model": llm, "messages": [["role": "user", "content": "Hi"]], "max_tokens": 5]
            )
            let text = try await client.get("/metrics").text
            #expect(text.contains("# TYPE runanywhere_http_requests_total counter"))
            #expect(text.contains(#"runanywhere_http_requests_total{route="/v1/chat/completions",status="200"} 1"#))
            #expect(text.contains("runanywhere_completion_tokens_total"))
            #expect(text.contains("runanywhere_queue_depth"))
            #expect(text.contains("runanywhere_http_request_duration_seconds_bucket"))
            let health = try await client.get("/health").json
            #expect(health["status"] as? String == "ok")
            #expect(health["models"] as? [String] == [llm])
        }
    }

    @Test("Beyond the slots and the queue a request gets 429 with Retry-After")
    func queueFull() async throws {
        let slow = DeterministicBackend.Timing(tokensPerSecond: 20)
        let configuration = OpenAIServerConfiguration(slots: 1, queueSize: 0, apiKey: "test-key")
        try await withServer(configuration, timing: slow, over: .http) { client, _ in
            let body: [String: Any] = [
                "model": llm, "messages": [["role": "user", "content": "Hi"]], "max_tokens": 400, "stream": true,
            ]
            let data = try JSONSerialization.data(withJSONObject: body)
            let response = try await HTTPClient.shared.execute(
                client.request(.POST, "/v1/chat/completions", body: ByteBuffer(bytes: data)),
                timeout: .seconds(120)
            )
            var chunks = response.body.makeAsyncIterator()
            // The first event (the role) means the request holds the only slot.
            _ = try await chunks.next()
            let refused = try await client.post("/v1/chat/completions", json: body)
            try refused.expectError(429, code: "rate_limit_exceeded")
            #expect(refused.headers.first(name: "retry-after") == "1")
            #expect(try await client.get("/health").status == 200)
        }
    }

    @Test("A client that disconnects mid-stream cancels its generation")
    func disconnectCancels() async throws {
        let slow = DeterministicBackend.Timing(tokensPerSecond: 50)
        try await withServer(timing: slow, over: .http) { client, sdk in
            let cancelled = sdk.events.events(for: .llm)
            let body: [String: Any] = [
                "model": llm, "messages": [["role": "user", "content": "Hi"]], "max_tokens": 5000, "stream": true,
            ]
            let data = try JSONSerialization.data(withJSONObject: body)
            let reading = Task {
                let response = try await HTTPClient.shared.execute(
                    client.request(.POST, "/v1/chat/completions", body: ByteBuffer(bytes: data)),
                    timeout: .seconds(120)
                )
                var received = 0
                for try await _ in response.body {
                    received += 1
                    if received == 5 { return }  // drops the connection mid-stream
                }
            }
            try await reading.value
            var tokens: Int?
            for await event in cancelled {
                if case .generationCancelled(_, _, let count) = event.kind {
                    tokens = count
                    break
                }
            }
            #expect((tokens ?? 5000) < 5000)
            // The slot is free again: a new request completes.
            let next = try await client.post(
                "/v1/chat/completions",
                json: ["model": llm, "messages": [["role": "user", "content": "Hi"]], "max_tokens": 3]
            )
            #expect(next.status == 200)
        }
    }

    @Test("A streaming client that never reads does not hold up others, and its generation still ends")
    func clientThatNeverReads() async throws {
        try await withServer(over: .http) { client, sdk in
            let completed = sdk.events.events(for: .llm)
            let port = try #require(URL(string: client.base)?.port)
            let body = try String(
                decoding: JSONSerialization.data(withJSONObject: [
                    "model": llm, "messages": [["role": "user", "content": "Go on"]], "max_tokens": 4000,
                    "ignore_eos": true, "stream": true,
                ]),
                as: UTF8.self
            )
            let head =
                "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer test-key\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
            let request = head + body
            let fd = try await onOwnThread { () throws -> Int32 in
                let fd = try connectLoopback(port: port)
                _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                return fd
            }
            defer { close(fd) }
            // The stalled stream's generation runs to its end (the context's end: a thousand
            // tokens and more, whose chunks are more than the socket buffers hold unread).
            var generated = 0
            for await event in completed {
                if case .generationCompleted(_, _, let tokens, _, _) = event.kind {
                    generated = tokens
                    break
                }
            }
            #expect(generated > 1000)
            let other = try await client.post(
                "/v1/chat/completions",
                json: ["model": llm, "messages": [["role": "user", "content": "Hi"]], "max_tokens": 4]
            )
            #expect(other.status == 200)
        }
    }

    @Test("A thousand connections opened and dropped leave the server serving")
    func droppedConnections() async throws {
        try await withServer(over: .http) { client, _ in
            let port = try #require(URL(string: client.base)?.port)
            let opened = try await onOwnThread { () throws -> Int in
                for index in 0..<1000 {
                    let fd = try connectLoopback(port: port)
                    if index % 2 == 0 {
                        // Half send the start of a request before going away.
                        let partial =
                            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"mo"
                        _ = partial.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                    }
                    close(fd)
                }
                return 1000
            }
            #expect(opened == 1000)
            let reply = try await client.post(
                "/v1/chat/completions",
                json: ["model": llm, "messages": [["role": "user", "content": "Still there?"]], "max_tokens": 4]
            )
            #expect(reply.status == 200)
        }
    }

    @Test("A second model of the same kind is switched to once the first is idle")
    func modelSwitch() async throws {
        try await withServer { client, sdk in
            var other = try sdk.model(llm)
            other.id = "test-llm-2"
            other.name = "Second"
            try sdk.registerModel(other)
            for model in [llm, "test-llm-2", llm] {
                let reply = try await client.post(
                    "/v1/chat/completions",
                    json: ["model": model, "messages": [["role": "user", "content": "Hi"]], "max_tokens": 3]
                )
                #expect(reply.status == 200)
                #expect(try reply.json["model"] as? String == model)
                #expect(await sdk.currentLLMModel?.id == model)
            }
        }
    }
}

/// Runs blocking work (raw sockets) on a thread of its own: on one of Swift's cooperative
/// threads it would stall every server handler and test of the process while it blocks.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Ways to write a path that a router may resolve to the same route as its plain spelling.
enum PathSpelling: String, CaseIterable, Sendable {
    case plain, leadingDoubleSlash, doubleSlashAfterV1, dotSegmentFirst, dotSegmentAfterV1, encodedSlash
    case trailingSlash, upperCase

    /// `path` (`/v1/models`) spelled this way (`//v1/models`, `/v1/./models`, …).
    func spell(_ path: String) -> String {
        switch self {
        case .plain: path
        case .leadingDoubleSlash: "/" + path
        case .doubleSlashAfterV1: path.replacingOccurrences(of: "/v1/", with: "/v1//")
        case .dotSegmentFirst: "/." + path
        case .dotSegmentAfterV1: path.replacingOccurrences(of: "/v1/", with: "/v1/./")
        case .encodedSlash: "/%2F" + path.dropFirst()
        case .trailingSlash: path + "/"
        case .upperCase: path.uppercased()
        }
    }
}

/// The status code of one request sent byte for byte as given (no client normalizes its path,
/// as `curl --path-as-is` sends it), with an empty JSON body for a POST.
private func rawStatus(port: Int, method: String, path: String, key: String? = nil) async throws -> Int {
    let body = method == "POST" ? "{}" : ""
    var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    if let key { head += "Authorization: Bearer \(key)\r\n" }
    if method == "POST" { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
    let request = head + "\r\n" + body
    let reply = try await onOwnThread { () throws -> String in
        let fd = try connectLoopback(port: port)
        defer { close(fd) }
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
    // "HTTP/1.1 401 Unauthorized"
    let fields = reply.prefix { $0 != "\r" }.split(separator: " ")
    guard fields.count >= 2, let status = Int(fields[1]) else {
        throw SDKException(.networkUnavailable, "No status line in the reply to \(method) \(path): \(reply.prefix(80))")
    }
    return status
}

/// A TCP connection to 127.0.0.1:`port`, as a raw socket.
private func connectLoopback(port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw SDKException(.networkUnavailable, "socket() failed (errno \(errno))") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else {
        let code = errno
        close(fd)
        throw SDKException(.networkUnavailable, "connect to 127.0.0.1:\(port) failed (errno \(code))")
    }
    return fd
}
