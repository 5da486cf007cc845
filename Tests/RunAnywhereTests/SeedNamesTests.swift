import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Synchronization
import Testing

@testable import RunAnywhereTesting

/// The original SDK's names end in this SDK's code paths and behave as the original documents.
@Suite("The original SDK's names")
struct SeedNamesTests {
    @Test("SDKException is a LocalizedError whose description is its message, with the seed's factories")
    func localizedError() {
        let error = SDKException(.modelNotFound, "No model 'x'", recovery: "Register it first")
        let asError: any Error = error
        #expect(asError.localizedDescription == "No model 'x'")
        #expect(error.errorDescription == "No model 'x'")
        #expect(error.failureReason == "[model] model_not_found")
        #expect((asError as? LocalizedError)?.recoverySuggestion == "Register it first")
        #expect(SDKException.modelNotFound("gone").code == .modelNotFound)
        #expect(SDKException.validationFailed("bad").code == .invalidInput)
        #expect(SDKException.notInitialized().code == .notInitialized)
        #expect(SDKException(code: .timeout, message: "slow").code == .remoteTimeout)
        #expect(SDKException.cancelled().isExpected)
        #expect(!SDKException.networkError("down").isExpected)
        #expect(SDKException.from(error) == error)
        #expect(SDKException.from(CocoaError(.fileNoSuchFile)).code == .unknown)
        #expect(error.telemetryProperties["error_code"] == "model_not_found")
        #expect(Set([error, error]).count == 1)
    }

    @Test("The seed's error codes match in a switch as the codes they alias")
    func codeAliases() {
        func kind(_ code: ErrorCode) -> String {
            switch code {
            case .cancelled: "cancelled"
            case .invalidApiKey: "key"
            case .unknown: "unknown"
            default: "other"
            }
        }
        #expect(kind(.generationCancelled) == "cancelled")
        #expect(kind(.invalidAPIKey) == "key")
        #expect(kind(.internalError) == "unknown")
        #expect(kind(.modelNotFound) == "other")
        #expect(ErrorCode.streamCancelled.isExpected)
        #expect(!ErrorCode.modelNotFound.isExpected)
    }

    @Test("on(_:) calls its handler for each event until cancelled; on(_:handler:) filters by category")
    func handlers() {
        let bus = EventBus()
        let all = Mutex<[String]>([])
        let models = Mutex<[String]>([])
        let everything = bus.on { event in all.withLock { $0.append(event.category.rawValue) } }
        let onlyModels = bus.on(.model) { event in models.withLock { $0.append(event.category.rawValue) } }
        bus.publish(.modelLoadStarted(modelId: "a", category: .llm))
        bus.publish(.generationStarted(generationId: UUID(), modelId: "a"))
        everything.cancel()
        bus.publish(.modelLoadStarted(modelId: "b", category: .llm))
        #expect(all.withLock { $0 } == ["model", "llm"])
        #expect(models.withLock { $0 } == ["model", "model"])
        onlyModels.cancel()
        onlyModels.cancel()
        bus.publish(.modelLoadStarted(modelId: "c", category: .llm))
        #expect(models.withLock { $0 }.count == 2)
    }

    @Test("A subscription released without cancel stops its handler, as Combine's does")
    func releasedSubscription() {
        let bus = EventBus()
        let count = Mutex(0)
        do {
            let subscription = bus.on { _ in count.withLock { $0 += 1 } }
            bus.publish(.modelLoadStarted(modelId: "a", category: .llm))
            _ = subscription
        }
        bus.publish(.modelLoadStarted(modelId: "b", category: .llm))
        #expect(count.withLock { $0 } == 1)
    }

    @Test("Numbered subscriptions on the shared bus deliver until unsubscribed")
    func numberedSubscriptions() {
        let marker = "seed-\(UUID().uuidString)"
        let seen = Mutex(0)
        let id = RunAnywhere.subscribeSDKEvents { event in
            if case .modelLoadStarted(let modelId, _) = event.kind, modelId == marker { seen.withLock { $0 += 1 } }
        }
        #expect(RunAnywhere.publishSDKEvent(SDKEvent(.modelLoadStarted(modelId: marker, category: .llm))))
        RunAnywhere.unsubscribeSDKEvents(id)
        RunAnywhere.unsubscribeSDKEvents(id)
        RunAnywhere.publishSDKEvent(SDKEvent(.modelLoadStarted(modelId: marker, category: .llm)))
        #expect(seen.withLock { $0 } == 1)
        #expect(EventBus.shared === RunAnywhere.events)
    }

    @Test("The seed's init parameters and environment predicates follow this SDK's rules")
    func initParamsAndEnvironment() throws {
        let development = SDKInitParams(forDevelopmentWithAPIKey: "  ")
        #expect(development.apiKey == nil)
        #expect(development.environment == .development)
        let production = try SDKInitParams(
            apiKey: "sk-12345678",
            baseURL: URL(string: "https://api.example.com")!,
            environment: .production
        )
        #expect(production.baseURL?.host == "api.example.com")
        #expect(throws: SDKException.self) {
            try SDKInitParams(
                apiKey: "sk-12345678",
                baseURL: URL(string: "http://plain.example.com")!,
                environment: .production
            )
        }
        #expect(SDKEnvironment.production.isProduction && !SDKEnvironment.staging.isProduction)
        #expect(SDKEnvironment.staging.isTesting)
        #expect(SDKEnvironment.staging.requiresAuthentication == SDKEnvironment.staging.requiresAPIKey)
        #expect(!SDKEnvironment.development.requiresBackendURL)
        #expect(SDKEnvironment.from(wireString: "PRODUCTION") == .production)
        #expect(SDKEnvironment.deployableCases == SDKEnvironment.allCases)
        #expect(SDKEnvironment.production.isCompatibleWithCurrentBuild == !SDKEnvironment.isDebugBuild)
    }

    @Test("transcribeStream(audio:) ends its stream on an error where the throwing form throws it")
    func nonThrowingTranscriptionStream() async throws {
        try await withDeterministicSDK { sdk in
            func chunks() -> AsyncStream<Data> {
                AsyncStream { continuation in
                    continuation.yield(Data(repeating: 0, count: 3_200))
                    continuation.finish()
                }
            }
            var partials = 0
            for await _ in sdk.transcribeStream(audio: chunks()) { partials += 1 }
            #expect(partials == 0)
            await #expect(throws: SDKException.self) {
                for try await _ in sdk.transcribeStream(chunks()) {}
            }
            try await sdk.loadSTTModel("test-stt")
            let spoken = DeterministicBackend.speech(for: "lights on")
            let pcm = Data(
                spoken.samples.flatMap { sample -> [UInt8] in
                    let value = Int16(max(-1, min(1, sample)) * 32_767)
                    return [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
                }
            )
            let spokenChunks = AsyncStream<Data> { continuation in
                continuation.yield(pcm)
                continuation.finish()
            }
            var final = ""
            for await partial in sdk.transcribeStream(audio: spokenChunks) {
                if partial.isFinal { final = partial.text }
            }
            #expect(final == "lights on")
        }
    }

    @Test("The seed's labels for structured output, extraction and tools end in the same calls")
    func seedLabels() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadModel("test-llm")
            let schema = JSONSchema.object(["city": .string()], required: ["city"])
            let options = LLMGenerationOptions(maxTokens: 64, temperature: 0)
            let seed = try await sdk.generateStructured(prompt: "Where?", schema: schema, options: options)
            let ours = try await sdk.generateStructured("Where?", schema: schema, options: options)
            #expect(seed.text == ours.text)
            #expect(seed.success == seed.isValid)
            let found = try sdk.extractStructuredOutput(text: #"Here: {"city": "Oslo"}"#, schema: schema)
            #expect(found.value["city"]?.stringValue == "Oslo")
            #expect(schema.jsonSchemaString == schema.description)
            #expect(sdk.getRegisteredTools() == sdk.registeredTools())
            #expect(ToolCallingOptions.defaults() == ToolCallingOptions())
            #expect(STTOptions.defaults() == STTOptions())
        }
    }

    @Test("Request-shaped model calls load into the model's capability and return errors instead of throwing")
    func modelRequests() async throws {
        try await withDeterministicSDK { sdk in
            let llm = await sdk.loadModel(ModelLoadRequest(modelId: "test-llm"))
            #expect(llm.success)
            #expect(llm.resolvedPrimaryModelPath != nil)
            #expect(await sdk.currentLLMModel?.id == "test-llm")
            let stt = await sdk.loadModel(ModelLoadRequest(modelId: "test-stt"))
            #expect(stt.success)
            #expect(await sdk.currentSTTModel?.id == "test-stt")
            let missing = await sdk.loadModel(ModelLoadRequest(modelId: "no-such-model"))
            #expect(!missing.success)
            #expect(missing.error?.code == .modelNotFound)
            let wrongKind = await sdk.loadModel(ModelLoadRequest(modelId: "test-llm", category: .loraAdapter))
            #expect(wrongKind.error?.code == .invalidInput)
            #expect(await sdk.unloadModel(ModelUnloadRequest(category: .speechRecognition)).success)
            #expect(await sdk.currentSTTModel == nil)
            #expect(await sdk.unloadModel(ModelUnloadRequest(category: .speechRecognition)).success)

            let all = await sdk.listModels(ModelListRequest())
            #expect(all.error == nil)
            let registered = try sdk.availableModels().map(\.id)
            #expect(all.models.map(\.id) == registered)
            let speech = await sdk.queryModels(ModelQuery(category: .speechRecognition))
            #expect(speech.models.map(\.id) == ["test-stt"])
            let downloaded = await sdk.downloadedModels()
            #expect(downloaded.totalCount == all.models.filter(\.isDownloaded).count)
            #expect(await sdk.getModel(ModelGetRequest(modelId: "test-vad")).found)
            let unknown = await sdk.getModel(ModelGetRequest(modelId: "nope"))
            #expect(!unknown.found)
            #expect(unknown.error?.code == .modelNotFound)
        }
    }
}
