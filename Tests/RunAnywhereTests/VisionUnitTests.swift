import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import RunAnywhereTesting
import Testing

/// The vision-language API above the engine, on the deterministic backend's `test-vlm`: what
/// an app's tests see without weights. The real path is in the real-engine vision tests.
@Suite("Vision-language API on the deterministic backend")
struct VisionUnitTests {
    static func pixels(_ value: UInt8, width: Int = 8, height: Int = 6) -> VLMImage {
        .fromRawRGB(Data(repeating: value, count: width * height * 3), width: width, height: height)
    }

    /// A question answered in exactly twelve greedy tokens.
    static let twelveTokens = VLMGenerationOptions(
        prompt: "What is this?",
        generation: LLMGenerationOptions(maxTokens: 12, temperature: 0, ignoreEndOfSequence: true)
    )

    @Test("The original SDK's image stream is events: each piece of text, then the end, or the failure")
    func seedImageStream() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadVLMModel(DeterministicModels.vlm)
            let options = Self.twelveTokens
            let answer = try await sdk.processImage(Self.pixels(10), options: options)
            var streamed = ""
            var ends: [SDKEvent.Kind] = []
            var ids = Set<UUID>()
            for await event in try await sdk.processImageStream(Self.pixels(10), options: options) {
                switch event.kind {
                case .generationToken(let id, let text, _):
                    streamed += text
                    ids.insert(id)
                case .generationCompleted(let id, _, _, _, _), .generationFailed(let id, _, _):
                    ends.append(event.kind)
                    ids.insert(id)
                default:
                    Issue.record("unexpected \(event)")
                }
            }
            #expect(streamed == answer.text)
            #expect(ids.count == 1, "one generation id")
            guard case .generationCompleted(_, let modelId, let tokens, _, _) = try #require(ends.last) else {
                Issue.record("ended with \(ends)")
                return
            }
            #expect(ends.count == 1)
            #expect(modelId == DeterministicModels.vlm)
            #expect(tokens == 12)

            // A file that is no image fails inside the stream: its one event says why.
            var failures: [SDKEvent.Kind] = []
            for await event in try await sdk.processImageStream(.fromEncoded(Data("no image".utf8)), options: options) {
                failures.append(event.kind)
            }
            #expect(failures.count == 1)
            guard case .generationFailed(_, let failedModel, let error) = try #require(failures.last) else {
                Issue.record("ended with \(failures)")
                return
            }
            #expect(failedModel == DeterministicModels.vlm)
            #expect(error.code == .invalidImage)
        }
    }

    @Test("The original SDK's image stream ends with a cancellation event when the generation is cancelled")
    func seedImageStreamCancelled() async throws {
        // At 20 tokens a second the context fills in 100 s: the cancellation lands long before.
        try await withDeterministicSDK(timing: DeterministicBackend.Timing(tokensPerSecond: 20)) { sdk in
            try await sdk.loadVLMModel(DeterministicModels.vlm)
            var options = Self.twelveTokens
            options.generation.maxTokens = 10_000
            var last: SDKEvent.Kind?
            for await event in try await sdk.processImageStream(Self.pixels(10), options: options) {
                if case .generationToken = event.kind, last == nil { await sdk.cancelVLMGeneration() }
                last = event.kind
            }
            guard case .generationCancelled(_, let modelId, let tokens) = try #require(last) else {
                Issue.record("ended with \(String(describing: last))")
                return
            }
            #expect(modelId == DeterministicModels.vlm)
            #expect(tokens < 10_000)
        }
    }

    @Test("Images count as tokens, change the reply, and stream like text")
    func imagesShapeTheReply() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadVLMModel(DeterministicModels.vlm)
            let options = Self.twelveTokens
            let dark = try await sdk.processImage(Self.pixels(10), options: options)
            #expect(dark.imageTokens == 16)
            #expect(dark.generatedTokens == 12)
            #expect(try await sdk.processImage(Self.pixels(10), options: options).text == dark.text)
            #expect(try await sdk.processImage(Self.pixels(200), options: options).text != dark.text)

            var streamed = ""
            for try await event in try await sdk.generateStream(
                options.prompt,
                images: [Self.pixels(10)],
                options: options.generation
            ) {
                if case .token(let text, _) = event { streamed += text }
            }
            #expect(streamed == dark.text)
            let two = try await sdk.generate(
                "Compare.",
                images: [Self.pixels(1), Self.pixels(2)],
                options: options.generation
            )
            #expect(two.imageTokens == 32)
            let chat = try await sdk.chat(
                [.user("What is this?", images: [Self.pixels(10)])],
                options: options.generation
            )
            #expect(chat.imageTokens == 16)
        }
    }

    @Test("A conversation with tool calls keeps its images when the tool turns are written out")
    func imagesSurviveToolTurns() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadVLMModel(DeterministicModels.vlm)
            let conversation: [ChatMessage] = [
                .user("Which city is this?", images: [Self.pixels(40)]),
                ChatMessage(
                    role: .assistant,
                    content: "",
                    toolCalls: [ToolCall(id: "call-1", name: "lookup", arguments: ["query": "skyline"])]
                ),
                ChatMessage(role: .tool, content: "Oslo", toolCallId: "call-1"),
                .user("So?"),
            ]
            let reply = try await sdk.chat(conversation, options: LLMGenerationOptions(maxTokens: 4, temperature: 0))
            #expect(reply.imageTokens == 16)
        }
    }

    @Test("The VLM is held apart from the language model; each has its own load and errors")
    func separateFromTheLanguageModel() async throws {
        try await withDeterministicSDK { sdk in
            await #expect(throws: SDKException.self) { try await sdk.describeImage(Self.pixels(1)) }
            try await sdk.loadModel(DeterministicModels.llm)
            try await sdk.loadVLMModel(DeterministicModels.vlm)
            #expect(await sdk.currentLLMModel?.id == DeterministicModels.llm)
            #expect(await sdk.currentVLMModel?.id == DeterministicModels.vlm)
            // A language model is not a VLM, nor the reverse.
            await #expect(throws: SDKException.self) { try await sdk.loadVLMModel(DeterministicModels.llm) }
            await #expect(throws: SDKException.self) { try await sdk.loadModel(DeterministicModels.vlm) }
            try await sdk.unloadVLMModel()
            #expect(await sdk.isVLMModelLoaded == false)
            #expect(await sdk.currentLLMModel?.id == DeterministicModels.llm)
        }
    }

    @Test("A bad image is an invalid_image error before the backend sees it")
    func badImages() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadVLMModel(DeterministicModels.vlm)
            for image in [
                VLMImage.fromEncoded(Data("not an image".utf8)), .fromRawRGB(Data(count: 5), width: 2, height: 2),
                .fromFilePath("/nonexistent/photo.jpg"),
            ] {
                do {
                    _ = try await sdk.describeImage(image)
                    Issue.record("accepted \(image)")
                } catch {
                    #expect((error as? SDKException)?.code == .invalidImage)
                }
            }
            #expect(try await sdk.describeImage(Self.pixels(3)).imageTokens == 16)
        }
    }
}
