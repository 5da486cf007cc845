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

    @Test("An exception keeps its cause as the error itself, and the seed's categories name this SDK's")
    func underlyingAndCategories() {
        let cause = CocoaError(.fileNoSuchFile)
        let wrapped = SDKException(.fileSystemError, "Cannot read", underlying: cause)
        #expect((wrapped.underlying as? CocoaError)?.code == .fileNoSuchFile)
        #expect(wrapped.underlyingDescription == String(describing: cause))
        #expect(wrapped == SDKException(.fileSystemError, "Cannot read", underlying: cause))
        #expect(wrapped != SDKException(.fileSystemError, "Cannot read"))
        #expect(SDKException(.fileSystemError, "x").underlying == nil)
        #expect(ErrorCategory.io == .storage && ErrorCategory.component == .backend)
        #expect(ErrorCategory.configuration == .initialization)
        // Credentials are the original's `.auth`, whether a key was refused here or by a server.
        for code in [ErrorCode.invalidAPIKey, .remoteUnauthorized, .tokenExpired] {
            #expect(SDKException(code, "no").category == .auth)
        }
        #expect(ErrorCode.allCases.filter { $0.category == .auth }.count == 3)
        let made = SDKException.make(code: .fileSystemError, message: "x", category: .io, shouldLog: false)
        #expect(made.category == .io)
    }

    @Test("An exception keeps the call stack where it was made, named only when read, and compares without it")
    func stackTrace() {
        func make() -> SDKException { SDKException(.invalidInput, "bad") }
        let here = make()
        let elsewhere = SDKException(.invalidInput, "bad")
        #expect(here == elsewhere, "where an exception was made is not part of what it says")
        #expect(Set([here, elsewhere]).count == 1)
        let frames = here.stackTrace
        #expect(frames.count > 3)
        #expect(frames.allSatisfy { $0.contains("[0x") })
        // The innermost frames are in the test binary (named by image and offset, since an
        // executable's own symbols are not exported: llvm-symbolizer names them).
        #expect(frames.first?.contains("PackageTests") == true, "\(frames.prefix(3))")
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

    @Test("Subscriptions stored the Combine way deliver while the set holds them, and stop when it lets go")
    func storedSubscriptions() {
        let bus = EventBus()
        let count = Mutex(0)
        var cancellables = Set<EventSubscription>()
        var list: [EventSubscription] = []
        bus.on { _ in count.withLock { $0 += 1 } }.store(in: &cancellables)
        bus.on(.model) { _ in count.withLock { $0 += 10 } }.store(in: &list)
        bus.publish(.modelLoadStarted(modelId: "a", category: .llm))
        #expect(count.withLock { $0 } == 11)
        cancellables.removeAll()
        bus.publish(.modelLoadStarted(modelId: "b", category: .llm))
        #expect(count.withLock { $0 } == 21)
        list.removeAll()
        bus.publish(.modelLoadStarted(modelId: "c", category: .llm))
        #expect(count.withLock { $0 } == 21)
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

    @Test("An instance has the original SDK's event calls on its own bus: numbered subscriptions, publishing, polling")
    func instanceEventCalls() async throws {
        try await withDeterministicSDK { sdk in
            let failures = Mutex<[String]>([])
            let id = sdk.subscribeSDKEvents { event in
                if case .failure(_, _, let operation, _) = event.kind { failures.withLock { $0.append(operation) } }
            }
            #expect(sdk.publishSDKFailure(errorCode: .timeout, message: "slow", component: "test", operation: "first"))
            sdk.unsubscribeSDKEvents(id)
            #expect(sdk.publishSDKFailure(errorCode: .timeout, message: "slow", component: "test", operation: "second"))
            #expect(failures.withLock { $0 } == ["first"])
            #expect(sdk.publishSDKEvent(SDKEvent(.modelRemoved(modelId: "polled"))))

            // Queued from the instance's first event on, in order, each once.
            var polled: [SDKEvent.Kind] = []
            while let event = sdk.pollSDKEvent() { polled.append(event.kind) }
            #expect(polled.first?.name == "init_started")
            let operations = polled.compactMap { kind -> String? in
                if case .failure(_, _, let operation, _) = kind { operation } else { nil }
            }
            #expect(operations == ["first", "second"])
            #expect(polled.filter { if case .modelRemoved("polled") = $0 { true } else { false } }.count == 1)
            #expect(sdk.events !== RunAnywhere.events, "its own bus")

            // A shut-down instance drops its numbered handlers, so none keeps it alive.
            let calls = Mutex(0)
            sdk.subscribeSDKEvents { _ in calls.withLock { $0 += 1 } }
            await sdk.shutdown()
            let before = calls.withLock { $0 }
            sdk.events.publish(.modelRemoved(modelId: "after shutdown"))
            #expect(calls.withLock { $0 } == before)
        }
    }

    @Test("The seed's init parameters and environment predicates follow this SDK's rules")
    func initParamsAndEnvironment() throws {
        let development = SDKInitParams(forDevelopmentWithAPIKey: "  ")
        #expect(development.apiKey.isEmpty)
        #expect(development.environment == .development)
        let production = try SDKInitParams(
            apiKey: "sk-12345678",
            baseURL: URL(string: "https://api.example.com")!,
            environment: .production
        )
        #expect(production.baseURL.host == "api.example.com")
        // The seed's overloads are production unless told otherwise.
        let unsaid = try SDKInitParams(apiKey: "sk-12345678", baseURL: URL(string: "https://api.example.com")!)
        #expect(unsaid.environment == .production)
        #expect(try SDKInitParams(apiKey: "sk-12345678", baseURL: "https://api.example.com").environment == .production)
        #expect(throws: SDKException.self) { try SDKInitParams(apiKey: nil, baseURL: nil) }
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
            let config = StructuredOutputOptions.defaults(schema: schema, includeSchemaInPrompt: false)
            #expect(!config.includeSchemaInPrompt)
            #expect(!config.strictMode)
            #expect(config.jsonSchema == schema.jsonSchemaString)
            let generation = try await sdk.generateWithStructuredOutput(
                prompt: "Where?",
                structuredOutput: config,
                options: options
            )
            #expect(generation.text == ours.text)
            #expect(seed.success == seed.isValid)
            // The seed's implicit member and no options: the library's defaults, the schema in the prompt.
            let prompted = StructuredOutputConfig.defaults(schema: schema, strict: true)
            #expect(prompted.includeSchemaInPrompt)
            #expect(prompted.strictMode)
            #expect(prompted == StructuredOutputOptions.defaults(schema: schema, strict: true))
            let unsaid = try await sdk.generateWithStructuredOutput(
                prompt: "Where?",
                structuredOutput: .defaults(schema: schema)
            )
            #expect(try JSONValue(parsing: unsaid.text)["city"]?.stringValue != nil)
            let found = try sdk.extractStructuredOutput(text: #"Here: {"city": "Oslo"}"#, schema: schema)
            #expect(found.value["city"]?.stringValue == "Oslo")
            #expect(found.success)
            #expect(found.validation.isValid)
            #expect(found.errorMessage.isEmpty)
            #expect(try JSONValue(parsing: String(decoding: found.parsedJson, as: UTF8.self)) == ["city": "Oslo"])
            // Where the seed answers success == false, the same `try` throws here.
            #expect(throws: SDKException.self) { try sdk.extractStructuredOutput(text: "no JSON here", schema: schema) }
            #expect(schema.jsonSchemaString == schema.description)
            #expect(sdk.getRegisteredTools() == sdk.registeredTools())
            #expect(ToolCallingOptions.defaults() == ToolCallingOptions())
            #expect(STTOptions.defaults() == STTOptions())
        }
    }

    @Test(
        "ModelInfo.make infers the artifact from the URL; a model's source and its side files are read from what it is"
    )
    func modelFactoryAndFiles() async throws {
        let url = try #require(URL(string: "https://example.com/models/voice-joe.tar.bz2"))
        let archived = ModelInfo.make(
            id: "joe",
            name: "Joe",
            category: .speechSynthesis,
            format: .onnx,
            framework: "sherpa",
            downloadURL: url,
            downloadSizeBytes: 1000
        )
        guard case .archive(let archive) = archived.artifact else {
            Issue.record("an archive URL gives an archive artifact, got \(String(describing: archived.artifact))")
            return
        }
        #expect(archive.type == .tarBz2)
        #expect(archive.primaryFile == "voice-joe")
        #expect(archived.sizeBytes == 1000)
        #expect(archived.source == .remote)
        // An archive's manifest is the paths it must unpack; a file's, the file.
        #expect(archived.expectedArtifactFiles == ExpectedModelFiles(requiredPatterns: ["voice-joe"]))
        let created = Date(timeIntervalSince1970: 1_700_000_000)
        let local = ModelInfo.make(
            id: "mine",
            name: "Mine",
            category: .llm,
            format: .gguf,
            framework: "llamacpp",
            supportsThinking: true,
            description: "A model of mine",
            source: .local,
            createdAt: created,
            updatedAt: created
        )
        #expect(local.registeredAt == created)
        #expect(local.expectedArtifactFiles.isEmptyManifest)
        #expect(local.artifact == nil)
        #expect(local.source == .local)
        #expect(local.resolvedPrimaryModelPath == nil, "nothing on disk")

        try await withDeterministicSDK { sdk in
            let model = try sdk.model("test-llm")
            let primary = try #require(model.resolvedPrimaryModelPath)
            #expect(model.resolvedTokenizerPath == nil)
            let folder = URL(fileURLWithPath: primary).deletingLastPathComponent()
            try Data("{}".utf8).write(to: folder.appendingPathComponent("tokenizer.json"))
            try Data("a\nb\n".utf8).write(to: folder.appendingPathComponent("vocab.txt"))
            #expect(model.resolvedTokenizerPath == folder.appendingPathComponent("tokenizer.json").path)
            #expect(model.resolvedVocabularyPath == folder.appendingPathComponent("vocab.txt").path)
            #expect(model.resolvedConfigPath == nil)
            #expect(model.resolvedVisionProjectorPath == nil)
            // On descriptors, a file's role is read from its name; only local files have a path.
            let files = [
                ModelFileDescriptor(url: URL(string: "https://example.com/model-mmproj-f16.gguf")!),
                ModelFileDescriptor(url: URL(fileURLWithPath: primary)),
                ModelFileDescriptor(url: folder.appendingPathComponent("tokenizer.json")),
                ModelFileDescriptor(url: folder.appendingPathComponent("vocab.txt")),
            ]
            #expect(files.resolvedPrimaryModelPath == primary)
            #expect(files.resolvedTokenizerPath == model.resolvedTokenizerPath)
            #expect(files.resolvedVocabularyPath == model.resolvedVocabularyPath)
            #expect(files.resolvedVisionProjectorPath == nil, "still to download")
            #expect(files.resolvedConfigPath == nil)
            #expect(files.dropFirst(2).resolvedPrimaryModelPath == nil, "side files only")
            let loaded = await sdk.loadModel(ModelLoadRequest(modelId: "test-llm"))
            #expect(loaded.resolvedPrimaryModelPath == primary)
            #expect(loaded.resolvedModelFilePath(role: .tokenizer) == model.resolvedTokenizerPath)
            #expect(sdk.currentModel(CurrentModelRequest(category: .llm)).resolvedVocabularyPath != nil)
            // The energy detector judges 512-sample frames at 16 kHz.
            #expect(await sdk.vadFrameLength == 0.032)
        }
        #expect(DeterministicBackend().frameworks == [.deterministic])
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
            #expect(sdk.currentModel(CurrentModelRequest(category: .speechRecognition)).modelId == "test-stt")
            #expect(sdk.componentLifecycleSnapshot(.stt)?.modelId == "test-stt")
            #expect(sdk.componentLifecycleSnapshot(.tts)?.state == .notLoaded)
            let missing = await sdk.loadModel(ModelLoadRequest(modelId: "no-such-model"))
            #expect(!missing.success)
            #expect(missing.error?.code == .modelNotFound)
            let wrongKind = await sdk.loadModel(ModelLoadRequest(modelId: "test-llm", category: .loraAdapter))
            #expect(wrongKind.error?.code == .invalidInput)
            #expect(await sdk.unloadModel(ModelUnloadRequest(category: .speechRecognition)).success)
            #expect(await sdk.currentSTTModel == nil)
            #expect(!sdk.currentModel(CurrentModelRequest(category: .speechRecognition)).isLoaded)
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

    @Test(
        "The seed's empty import request registers the file where it is; overwriting replaces, into the store or in place"
    )
    func seedImportRequest() async throws {
        try await withDeterministicSDK { sdk in
            let source = FileManager.default.temporaryDirectory.appendingPathComponent("seed-import-\(UUID()).gguf")
            try Data(repeating: 7, count: 4_096).write(to: source)
            defer { try? FileManager.default.removeItem(at: source) }
            var info = try sdk.model("test-llm")
            info.id = "in-place"
            info.name = "In place"
            var request = ModelImportRequest()
            #expect(!request.hasModel && !request.copyIntoManagedStorage && !request.overwriteExisting)
            request.model = info
            request.sourcePath = source.path
            #expect(request.hasModel && request.model.framework == info.framework)
            let inPlace = try await sdk.importModel(request)
            #expect(!inPlace.copiedIntoManagedStorage && inPlace.hasModel)
            #expect(inPlace.localPath == source.path)
            #expect(try sdk.model("in-place").name == "In place")
            await expectCode(.modelAlreadyExists) { try await sdk.importModel(request) }

            // Overwriting with the model's own file, as the original SDK's apps re-import.
            request.overwriteExisting = true
            request.model.name = "Renamed"
            #expect(try await sdk.importModel(request).localPath == source.path)
            #expect(try sdk.model("in-place").name == "Renamed")

            // Overwriting into the store: the old entry goes, the file it named stays (not the store's).
            request.copyIntoManagedStorage = true
            let stored = try await sdk.importModel(request)
            #expect(stored.copiedIntoManagedStorage)
            #expect(stored.localPath.hasPrefix(sdk.paths.home.path))
            #expect(FileManager.default.fileExists(atPath: source.path))
            #expect(try sdk.model("in-place").localPath?.path == stored.localPath)

            // A missing file is refused before the registered model is touched.
            request.sourcePath = source.path + ".missing"
            await expectCode(.modelFileNotFound) { try await sdk.importModel(request) }
            #expect(try sdk.model("in-place").localPath?.path == stored.localPath)

            // Re-importing the stored file, or its folder, keeps the file and what the entry knows.
            var keeps = try sdk.model("in-place")
            keeps.contextLength = 4_096
            try sdk.registerModel(keeps, replace: true)
            request.sourcePath = stored.localPath
            request.model.name = "Stored"
            #expect(try await sdk.importModel(request).copiedIntoManagedStorage)
            request.sourcePath = URL(fileURLWithPath: stored.localPath).deletingLastPathComponent().path
            _ = try await sdk.importModel(request)
            #expect(FileManager.default.fileExists(atPath: stored.localPath))
            #expect(try sdk.model("in-place").name == "Stored")
            #expect(try sdk.model("in-place").contextLength == 4_096)

            // Requests saved before the original's switches existed decode with ours.
            let older = #"{"path":"file:///tmp/m.gguf","modelId":"m","category":"llm","framework":"llamacpp"}"#
            let decoded = try JSONDecoder().decode(ModelImportRequest.self, from: Data(older.utf8))
            #expect(decoded.copyIntoManagedStorage && !decoded.overwriteExisting && decoded.mode == .copy)
        }
    }

    @Test("The seed's value, vector, language, artifact and storage helpers compute what their names say")
    func valueHelpers() throws {
        let members: [String: ToolValue] = [
            "b": ToolValue(2), "a": ToolValue("x"), "c": ToolValue(true), "d": ToolValue(0.5),
        ]
        let text = ToolValue.jsonString(from: members)
        #expect(text.firstRange(of: "\"a\"")!.lowerBound < text.firstRange(of: "\"b\"")!.lowerBound)
        #expect(ToolValue.parseObjectJSON(text) == members)
        // The seed's form answers nothing for text that is not an object; ours says why.
        #expect(ToolValue.parseObjectJSON("[1]").isEmpty)
        #expect(ToolValue.parseObjectJSON("{").isEmpty)
        #expect(throws: SDKException.self) { try ToolValue.parseObject("[1]") }
        #expect(ToolValue.object(members) == .object(["a": "x", "b": 2, "c": true, "d": 0.5]))
        let literal: ToolValue = .object(["z": 1, "a": 2])
        #expect(literal.objectValue?.map(\.key) == ["z", "a"], "a literal keeps its order")
        #expect(ToolValue(3).toJSONString() == "3")

        let vector: EmbeddingVector = [3, 4]
        #expect(vector.computeNorm() == 5)
        #expect(abs(vector.cosineSimilarity(with: [6, 8]) - 1) < 1e-6)
        #expect(vector.cosineSimilarity(with: [1]) == 0)

        #expect(STTLanguage.fromBcp47("en-US").bcp47Code == "en")
        #expect(STTLanguage.fromBcp47("ZH_Hant").bcp47Code == "zh")
        #expect(STTLanguage.fromBcp47("auto") == .auto)
        for bad in ["", "e", "english", "en--US", "12", "en-toolongsubtag", "é"] {
            #expect(STTLanguage.fromBcp47(bad) == .unspecified, "\(bad)")
        }
        func output(_ language: String?) -> STTOutput {
            STTOutput(
                text: "hi",
                segments: [],
                language: language,
                confidence: nil,
                modelId: "m",
                audioDuration: 1,
                processingTimeMs: 1
            )
        }
        #expect(output("en-GB").detectedLanguageCode.bcp47Code == "en")
        #expect(output(nil).detectedLanguageCode == .unspecified)

        let archive = ModelInfo.inferredArtifact(from: URL(string: "https://example.com/voice.tar.bz2")!)
        #expect(archive.primaryPath == "voice")
        let file = ModelInfo.inferredArtifact(from: URL(string: "https://example.com/m.gguf")!, format: .gguf)
        #expect(file == .file(RemoteFile(url: URL(string: "https://example.com/m.gguf")!)))
        #expect(ModelFileDescriptor(url: URL(string: "https://example.com/a")!, filename: "b.bin").fileName == "b.bin")
        #expect(ArchiveType.from(url: URL(string: "https://example.com/x.tgz")!)?.fileExtension == "tar.gz")
        #expect(DeviceStorageInfo(totalBytes: 100, freeBytes: 40, usedBytes: 999).usedBytes == 60)
        #expect(StorageInfo.empty.modelCount == 0 && StorageInfo.empty.totalBytes == 0)
        let stored = StoredModel(
            id: "m",
            name: "M",
            category: .llm,
            framework: .deterministic,
            path: URL(fileURLWithPath: "/tmp/m"),
            sizeBytes: 42,
            downloadedAt: nil,
            lastUsedAt: Date(timeIntervalSince1970: 1.5)
        )
        #expect(
            ModelStorageMetrics(stored) == ModelStorageMetrics(modelID: "m", sizeOnDiskBytes: 42, lastUsedMs: 1_500)
        )
        let available = StorageAvailability.make(
            isAvailable: false,
            requiredBytes: 10,
            availableBytes: 5,
            recommendation: "Free 5 bytes"
        )
        #expect(!available.isAvailable && available.recommendation == "Free 5 bytes")

        var voice = VoiceAgentConfiguration(sttModelId: "stt", llmModelId: "llm")
        voice.silenceDuration = 1.25
        #expect(voice.vad.minSilenceDuration == 1.25)
        #expect(ComponentLifecycleState.loaded(modelId: "x").isLoaded)
        #expect(!ComponentLifecycleState.notLoaded.isLoaded)
        #expect(SDKException.Code.contextTooLong == .contextLengthExceeded)
    }

    @Test("The seed's registration, deletion, generation and voice-activity calls end in this SDK's")
    func seedCalls() async throws {
        try await withDeterministicSDK { sdk in
            let url = URL(string: "https://example.com/seed.gguf")!
            let info = try await sdk.registerModel(
                id: "seed",
                name: "Seed",
                url: url.absoluteString,
                framework: .deterministic,
                modality: .language,
                memoryRequirement: 1_000
            )
            #expect(info.category == .llm)
            #expect(try sdk.model("seed").expectedArtifactFiles.files.map(\.url) == [url])
            #expect(try sdk.model("seed").expectedArtifactFiles.requiredPatterns.isEmpty)
            #expect(try sdk.model("seed").sizeBytes == 1_000)
            #expect(!info.isDownloadedOnDisk)
            // Without an id the URL's file names it, as a reference does.
            let named = try await sdk.registerModel(
                name: "Other",
                url: "https://example.com/other.gguf",
                framework: .deterministic
            )
            #expect(named.id == "other")
            let files = [
                ModelFileDescriptor(url: URL(string: "https://example.com/a.onnx")!, filename: "a.onnx"),
                ModelFileDescriptor(url: URL(string: "https://example.com/b.txt")!, filename: "b.txt"),
            ]
            let multi = try sdk.registerModel(
                multiFile: files,
                id: "multi",
                name: "M",
                framework: .deterministic,
                contextLength: 4_096
            )
            #expect(multi.artifact?.primaryPath == "a.onnx")
            #expect(try sdk.model("multi").contextLength == 4_096)
            #expect(throws: SDKException.self) {
                try sdk.registerModel(multiFile: [], id: "none", name: "N", framework: .deterministic)
            }
            let source = FileManager.default.temporaryDirectory.appendingPathComponent("seed-\(UUID()).gguf")
            try Data(repeating: 7, count: 4_096).write(to: source)
            defer { try? FileManager.default.removeItem(at: source) }
            let imported = try await sdk.importModel(
                ModelImportRequest(path: source, modelId: "imported", category: .llm, framework: .deterministic)
            )
            #expect(imported.success && imported.registered && imported.copiedIntoManagedStorage)
            #expect(imported.model.id == "imported")
            #expect(imported.localPath.hasPrefix(sdk.paths.home.path))
            #expect(FileManager.default.fileExists(atPath: imported.localPath))
            #expect(imported.importedBytes >= 4_096)
            #expect(imported.warnings.isEmpty && imported.errorMessage.isEmpty)
            await expectCode(.modelAlreadyExists) {
                try await sdk.importModel(
                    ModelImportRequest(path: source, modelId: "imported", category: .llm, framework: .deterministic)
                )
            }
            let report = await sdk.getStorageInfo(StorageInfoRequest())
            #expect(report.success && report.info.home == sdk.paths.home && report.errorMessage.isEmpty)
            #expect(await sdk.getStorageInfo().info.home == report.info.home)
            #expect(report.info.models.contains { $0.id == "imported" })
            // As the original's: the parts set are filled in, and none set means all.
            let models = await sdk.getStorageInfo(StorageInfoRequest(includeModels: true))
            #expect(!models.info.models.isEmpty && models.info.device.totalBytes == 0)
            #expect(models.info.modelsBytes == report.info.modelsBytes)
            let device = await sdk.getStorageInfo(StorageInfoRequest(includeDevice: true))
            #expect(device.info.device.totalBytes > 0 && device.info.modelsBytes == 0 && device.info.models.isEmpty)
            let older = try JSONDecoder().decode(StorageInfoRequest.self, from: Data("{}".utf8))
            #expect(older == StorageInfoRequest())
            let dry = await sdk.deleteStorage(StorageDeleteRequest(modelIds: ["test-llm"], dryRun: true))
            #expect(dry.deletedModelIds == ["test-llm"] && dry.success)
            #expect(try sdk.model("test-llm").isDownloaded)
            let failed = await sdk.deleteStorage(StorageDeleteRequest(modelIds: ["no-such-model"]))
            #expect(failed.errors["no-such-model"]?.code == .modelNotFound)

            try await sdk.loadModel("test-llm")
            let request = LLMGenerateRequest(prompt: "Hello", options: LLMGenerationOptions(maxTokens: 8, seed: 1))
            let direct = try await sdk.generate("Hello", options: request.options)
            #expect(try await sdk.generate(request).text == direct.text)
            var streamed = ""
            for await event in try await sdk.generateStream(request) {
                if case .token(let token, _) = event { streamed += token }
            }
            #expect(streamed == direct.text)
            #expect(LLMGenerationOptions.defaults() == LLMGenerationOptions())

            let silence = Data(count: 3_200)
            let verdict = try await sdk.detectVoiceActivity(silence, options: VADOptions(threshold: 0.9))
            #expect(!verdict.isSpeechDetected)
            #expect(abs(verdict.duration - 0.1) < 1e-9)
            let chunks = AsyncStream<Data> { continuation in
                for _ in 0..<3 { continuation.yield(silence) }
                continuation.finish()
            }
            var verdicts = 0
            for await result in sdk.streamVAD(audio: chunks) where !result.isSpeech { verdicts += 1 }
            #expect(verdicts == 3)
        }
    }

    @Test("A tool described by the seed's parameter list is the object schema it says; executeTool needs no try")
    func toolParameters() async throws {
        let tool = ToolDefinition(
            name: "get_weather",
            description: "Weather for a city.",
            parameters: [
                ToolParameter(name: "city", type: .string, description: "The city."),
                ToolParameter(
                    name: "unit",
                    type: .string,
                    description: "Unit.",
                    required: false,
                    enumValues: ["c", "f"]
                ),
                ToolParameter(name: "days", type: .integer, description: "Days ahead.", required: false),
            ]
        )
        try tool.validate()
        #expect(tool.parameters.validate(["city": "Oslo", "unit": "c", "days": 2]).isEmpty)
        #expect(!tool.parameters.validate(["unit": "c"]).isEmpty)
        #expect(!tool.parameters.validate(["city": "Oslo", "unit": "kelvin"]).isEmpty)
        #expect(!tool.parameters.validate(["city": "Oslo", "days": "two"]).isEmpty)
        #expect(tool.parameters.value["properties"]?.objectValue?.keys == ["city", "unit", "days"])
        if RunAnywhere.shared == nil {
            let result = await RunAnywhere.executeTool(ToolCall(id: "1", name: "get_weather", arguments: [:]))
            #expect(result.isError)
        }
    }

    /// Collects the lines of one category.
    final class Collector: LogDestination {
        let identifier: String
        let isAvailable = true
        let category: String
        let entries = Mutex<[LogEntry]>([])
        let flushes = Mutex(0)
        init(category: String, identifier: String? = nil) {
            self.category = category
            self.identifier = identifier ?? "seed-names-\(category)"
        }
        func write(_ entry: LogEntry) {
            guard entry.category == category else { return }
            entries.withLock { $0.append(entry) }
        }
        func flush() { flushes.withLock { $0 += 1 } }
    }

    @Test("A log destination receives lines at the log level, redacted, until removed; flushLogs flushes it")
    func logDestinations() {
        let category = "SeedNames-\(UInt64.random(in: 0...UInt64.max))"
        let collector = Collector(category: category)
        RunAnywhere.addLogDestination(collector)
        let logger = SDKLogger(category: category)
        // Other suites set the level anywhere from .debug to .error, so only an error is always kept.
        logger.error("kept", metadata: ["apiKey": "sk-secret", "model": "m"])
        RunAnywhere.flushLogs()
        #expect(RunAnywhere.removeLogDestination(identifier: collector.identifier))
        logger.error("after removal")
        let entries = collector.entries.withLock { $0 }
        #expect(entries.map(\.message) == ["kept"])
        #expect(entries.first?.level == .error)
        #expect(entries.first?.metadata == ["apiKey": "[REDACTED]", "model": "m"])
        #expect(entries.first?.source.contains("SeedNamesTests.swift") == true)
        #expect(collector.flushes.withLock { $0 } >= 1)
        #expect(LoggingConfiguration.forEnvironment(.production) == .production)
        #expect(!LoggingConfiguration.production.enableLocalLogging)
    }

    @Test(
        "A logging configuration has the original's defaults and presets, and its device and remote-reporting switches apply"
    )
    func loggingConfigurationSwitches() throws {
        #expect(LoggingConfiguration() == LoggingConfiguration(minLogLevel: .info, includeDeviceMetadata: true))
        #expect(!LoggingConfiguration().enableSentryLogging)
        #expect(LoggingConfiguration.development.enableSentryLogging)
        #expect(!LoggingConfiguration.development.includeDeviceMetadata)
        #expect(LoggingConfiguration.production.includeDeviceMetadata)
        #expect(!LoggingConfiguration.production.enableLocalLogging)
        let decoded = try JSONDecoder().decode(
            LoggingConfiguration.self,
            from: Data(#"{"enableLocalLogging": false, "minLogLevel": 2}"#.utf8)
        )
        #expect(decoded == LoggingConfiguration(enableLocalLogging: false, minLogLevel: .warning))
        #expect(!decoded.includeEngineLogs)
        #expect(!LoggingConfiguration.development.includeEngineLogs)

        // Device details: only this test switches them; the level is left as other suites set it.
        let category = "SeedNames-device-\(UInt64.random(in: 0...UInt64.max))"
        let collector = Collector(category: category)
        RunAnywhere.addLogDestination(collector)
        defer { RunAnywhere.removeLogDestination(identifier: collector.identifier) }
        let logger = SDKLogger(category: category)
        let before = RunAnywhere.loggingConfiguration
        defer { RunAnywhere.configureLogging(before) }
        var configuration = before
        configuration.includeDeviceMetadata = true
        RunAnywhere.configureLogging(configuration)
        logger.error("with the device")
        configuration.includeDeviceMetadata = false
        RunAnywhere.configureLogging(configuration)
        logger.error("without it")
        let entries = collector.entries.withLock { $0 }
        #expect(entries.map(\.message) == ["with the device", "without it"])
        let hardware = HardwareProfile.current()
        #expect(entries.first?.deviceInfo?.coreCount == hardware.cores)
        #expect(entries.first?.deviceInfo?.architecture == hardware.architecture)
        #expect(entries.first?.deviceInfo?.chipName == hardware.cpu)
        #expect(entries.last?.deviceInfo == nil)
        #expect(!RunAnywhere.loggingConfiguration.includeDeviceMetadata)

        // The engines' progress lines: only this test switches them.
        configuration.includeEngineLogs = true
        RunAnywhere.configureLogging(configuration)
        #expect(RunAnywhere.loggingConfiguration.includeEngineLogs)
        configuration.includeEngineLogs = false
        RunAnywhere.configureLogging(configuration)
        #expect(!RunAnywhere.loggingConfiguration.includeEngineLogs)

        // Remote reporting lives in another module, which installs the switch and records what
        // the shared instance took; a configuration flips it only when its value changes. On a
        // switch of its own: the process's is installed by any suite that registers that module.
        let reporting = RemoteReportingSwitch()
        reporting.request(true)
        #expect(!reporting.isOn, "nothing could turn it on")
        let switches = Mutex<[Bool]>([])
        reporting.install { on in
            switches.withLock { $0.append(on) }
            reporting.record(on)
        }
        reporting.request(true)
        reporting.request(true)
        #expect(reporting.isOn)
        reporting.request(false)
        #expect(switches.withLock { $0 } == [true, false])
        #expect(!reporting.isOn)
    }

    @Test("The seed's error logging says where it was called from and carries its extra text")
    func errorLogging() {
        let marker = "seed-log-\(UInt64.random(in: 0...UInt64.max))"
        let category = "SeedNames-\(marker)"
        let collector = Collector(category: category)
        let shared = Collector(category: SDKLogger.shared.category, identifier: "seed-names-shared-\(marker)")
        RunAnywhere.addLogDestination(collector)
        RunAnywhere.addLogDestination(shared)
        // Other suites set the level anywhere from .debug to .error: errors are always kept.
        // Not the factory, which logs what it makes on the shared logger itself.
        let missing = SDKException(.modelNotFound, marker)
        SDKLogger(category: category).logError(missing, additionalInfo: "while loading")
        SDKLogger(category: category).logError(missing, additionalInfo: nil)
        SDKException(.fileSystemError, marker, underlying: CocoaError(.fileNoSuchFile)).log()
        RunAnywhere.removeLogDestination(identifier: collector.identifier)
        let lines = collector.entries.withLock { $0 }
        #expect(lines.count == 2)
        #expect(lines.first?.metadata?["additional_info"] == "while loading")
        #expect(lines.first?.metadata?["error_code"] == "model_not_found")
        #expect(lines.last?.metadata?["additional_info"] == nil)
        let logged = shared.entries.withLock { $0 }.filter { $0.message == marker }
        #expect(logged.count == 1)
        #expect(logged.first?.level == .error)
        #expect(logged.first?.source.contains("SeedNamesTests.swift") == true, "\(logged)")
        // The cause's text may hold anything (a URL with a token): it is not copied into metadata.
        #expect(logged.first?.metadata?["underlying_error"] == nil)
        // A factory logs where it is called from, not where it is written.
        _ = SDKException.modelNotFound(marker + "-factory")
        RunAnywhere.removeLogDestination(identifier: shared.identifier)
        let factory = shared.entries.withLock { $0 }.filter { $0.message == marker + "-factory" }
        #expect(factory.count == 1)
        #expect(factory.first?.source.contains("SeedNamesTests.swift") == true, "\(factory)")
    }

    @Test("The seed's untyped log metadata arrives as text, redacted like any other")
    func untypedLogMetadata() {
        let category = "SeedNames-untyped-\(UInt64.random(in: 0...UInt64.max))"
        let collector = Collector(category: category)
        RunAnywhere.addLogDestination(collector)
        let logger = SDKLogger(category: category)
        // Other suites set the level anywhere from .debug to .error: errors are always kept.
        let metadata: [String: Any] = ["attempt": 2, "cached": true, "ratio": 0.5, "token": "sk-secret", "model": "m"]
        logger.error("untyped", metadata: metadata)
        logger.fault("fault", metadata: ["code": -1])
        let none: [String: Any]? = nil
        logger.error("none", metadata: none)
        RunAnywhere.removeLogDestination(identifier: collector.identifier)
        let entries = collector.entries.withLock { $0 }
        #expect(entries.map(\.message) == ["untyped", "fault", "none"])
        #expect(
            entries.first?.metadata
                == ["attempt": "2", "cached": "true", "ratio": "0.5", "token": "[REDACTED]", "model": "m"]
        )
        #expect(entries.dropFirst().first?.level == .critical)
        #expect(entries.dropFirst().first?.metadata == ["code": "-1"])
        #expect(entries.last?.metadata == nil)
        let nested = SDKLogger.metadata(["list": [1, "two"] as [Any], "map": ["k": 3]])
        #expect(nested == ["list": .array([.string("1"), .string("two")]), "map": .dictionary(["k": .string("3")])])
    }

    @Test("The seed's number types build an entity, and a speech event carries the wall clock apart from its place")
    func seedNumberAndTimeTypes() throws {
        let offsets: (Int32, Int32) = (4, 8)
        let entity = NamedEntity(
            text: "Oslo",
            entityType: "city",
            startOffset: offsets.0,
            endOffset: offsets.1,
            confidence: Float(0.5)
        )
        #expect(entity == NamedEntity(text: "Oslo", entityType: "city", startOffset: 4, endOffset: 8, confidence: 0.5))

        // An app never makes one: the detector does, or a decoder, as here.
        let event = try JSONDecoder().decode(
            SpeechActivityEvent.self,
            from: Data(#"{"kind": "speech_started", "time": 1.5}"#.utf8)
        )
        // The wall clock, not seconds into the stream: loose enough for any clock adjustment.
        #expect(abs(event.timestamp.timeIntervalSinceNow) < 3_600)
        var later = event
        later.timestamp = event.timestamp.addingTimeInterval(60)
        #expect(later == event, "equal events mark the same point of the audio, whenever computed")
        let decoded = try JSONDecoder().decode(SpeechActivityEvent.self, from: JSONEncoder().encode(later))
        #expect(decoded.timestamp == later.timestamp)
        #expect(decoded.time == 1.5)
    }

    @Test("A published failure reaches handlers and the polling queue as an sdk event with its parts")
    func failuresAndPolling() {
        let operation = "op-\(UInt64.random(in: 0...UInt64.max))"
        // Drained first, so ours is among the first few queued after it.
        while RunAnywhere.pollSDKEvent() != nil {}
        let seen = Mutex<[SDKEvent]>([])
        let subscription = RunAnywhere.events.on(.sdk) { event in seen.withLock { $0.append(event) } }
        #expect(
            RunAnywhere.publishSDKFailure(
                errorCode: .contextTooLong,
                message: "Too long",
                component: "LLM",
                operation: operation,
                recoverable: true
            )
        )
        subscription.cancel()
        func isOurs(_ event: SDKEvent) -> Bool {
            if case .failure(let error, "LLM", operation, true) = event.kind {
                return error.code == .contextLengthExceeded && error.message == "Too long"
            }
            return false
        }
        #expect(seen.withLock { $0.contains(where: isOurs) })
        // Other suites publish on the shared bus too: poll until ours, within the queue's bound.
        var polled: [SDKEvent] = []
        while let event = RunAnywhere.pollSDKEvent(), polled.count < 256 { polled.append(event) }
        #expect(polled.contains(where: isOurs))
        #expect(polled.first(where: isOurs)?.description == "sdk.failure")
    }

}
