import Foundation
import RealEngineTestSupport
import RunAnywhereLlamaCPP
import RunAnywhereSolutions
import RunAnywhereTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

extension RealEngineTests {
    @Suite("Two-phase initialization")
    struct InitializationTests {
        @Test("Initialize publishes its events, and concurrent phase-2 callers share one run")
        func phasesAndEvents() async throws {
            await RunAnywhere.reset()
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-test-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            let events = RunAnywhere.events.events(for: .sdk)
            LlamaCPP.register()
            try RunAnywhere.initialize(environment: .development, storageDirectory: home)
            #expect(RunAnywhere.isInitialized)
            #expect(RunAnywhere.environment == .development)
            try RunAnywhere.initialize(environment: .production)  // already initialized: ignored
            #expect(RunAnywhere.environment == .development)

            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { try await RunAnywhere.completeServicesInitialization() } }
                try await group.waitForAll()
            }
            #expect(RunAnywhere.areServicesReady)
            #expect(RunAnywhere.isOfflineMode, "no base URL: everything runs on-device")
            await RunAnywhere.reset()
            #expect(!RunAnywhere.isInitialized)
            #expect(!RunAnywhere.areServicesReady)

            var names: [String] = []
            for await event in events {
                names.append(event.kind.name)
                if case .servicesReady = event.kind { break }
            }
            // One started, one completed, one phase-2 run for nine callers (eight plus initialize's own).
            #expect(names == ["init_started", "init_completed", "services_ready"])
        }

        @Test("A failed initialize publishes initFailed and leaves the SDK uninitialized")
        func failedInitialize() async throws {
            await RunAnywhere.reset()
            let events = RunAnywhere.events.events(for: .sdk)
            do {
                try RunAnywhere.initialize(apiKey: nil, baseURL: "https://api.example.com", environment: .production)
                Issue.record("production without a key was accepted")
            } catch {
                #expect(error.code == .invalidAPIKey)
            }
            #expect(!RunAnywhere.isInitialized)
            // The facade's solutions exist before initialization, as the seed's property does:
            // a configuration checks, and running one says why it cannot.
            let solutions = RunAnywhere.solutions
            let config = try solutions.parse(yaml: "solution: agent-loop\nllm: smollm2-135m-instruct\n")
            await expectCode(.notInitialized) { try await solutions.run(config: config) }
            var names: [String] = []
            for await event in events {
                names.append(event.kind.name)
                if case .initFailed(let error) = event.kind {
                    #expect(error.code == .invalidAPIKey)
                    break
                }
            }
            #expect(names == ["init_started", "init_failed"])
        }

        @Test(
            "A shared instance shut down by hand counts as not initialized, initialize starts a new one, and solutions taken before follow it"
        )
        func sharedInstanceShutDownByHand() async throws {
            await RunAnywhere.reset()
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-test-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            // Taken before initialize: each run goes to the shared instance of the moment, which
            // knows no model in this empty home (not `.notInitialized`).
            let solutions = RunAnywhere.solutions
            let config = try solutions.parse(yaml: "solution: agent-loop\nllm: smollm2-135m-instruct\n")
            try RunAnywhere.initialize(environment: .development, storageDirectory: home)
            await expectCode(.modelNotFound) { try await solutions.run(config: config) }
            let first = try #require(RunAnywhere.shared)
            // Two concurrent shutdowns both return once the models are unloaded.
            async let a: Void = first.shutdown()
            async let b: Void = first.shutdown()
            _ = await (a, b)
            #expect(first.isShutDown)
            #expect(!RunAnywhere.isInitialized)
            await expectCode(.notInitialized) { try RunAnywhere.availableModels() }
            try RunAnywhere.initialize(environment: .development, storageDirectory: home)
            #expect(RunAnywhere.isInitialized)
            #expect(RunAnywhere.shared !== first)
            #expect(try RunAnywhere.availableModels().isEmpty)
            await expectCode(.modelNotFound) { try await solutions.run(config: config) }
            await RunAnywhere.reset()
        }

        @Test("Reset unloads the model and ends event streams; initialize, load and generate work again after it")
        func resetAndAgain() async throws {
            await RunAnywhere.reset()
            LlamaCPP.register()
            let model = try DefaultModels.llm()
            let greedy = LLMGenerationOptions(maxTokens: 6, temperature: 0)
            var answers: [String] = []
            for round in 0..<2 {
                let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-test-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: home) }
                try RunAnywhere.initialize(environment: .development, storageDirectory: home)
                let events = RunAnywhere.events.events(for: .model)
                try RunAnywhere.registerModel(model)
                try await RunAnywhere.loadModel(model.id)
                answers.append(try await RunAnywhere.generate("The capital of France is", options: greedy).text)
                let instance = try #require(RunAnywhere.shared)

                async let first: Void = RunAnywhere.reset()
                async let second: Void = RunAnywhere.reset()
                _ = await (first, second)
                await RunAnywhere.reset()
                #expect(!RunAnywhere.isInitialized, "round \(round)")
                #expect(instance.isShutDown)
                await expectCode(.notInitialized) {
                    try await RunAnywhere.generate("Hi", options: greedy)
                }
                // The stream ends by itself, with the unload as its last event.
                var names: [String] = []
                for await event in events { names.append(event.kind.name) }
                #expect(names.first == "model_load_started")
                #expect(names.last == "model_unloaded")
            }
            #expect(answers[0] == answers[1], "greedy answers before and after the reset: \(answers)")
            #expect(!answers[0].isEmpty)
        }

        @Test(
            "The original SDK's tool registration maps members to members, replaces a tool of the same name, and logs a failure"
        )
        func seedToolRegistration() async throws {
            await RunAnywhere.reset()
            let definition = ToolDefinition(
                name: "echo",
                description: "Echoes its text",
                parameters: .object(["text": .string()])
            )
            // Before initialize there is no instance to hold it: logged, nothing registered.
            await RunAnywhere.registerTool(definition) { _ in [:] }
            #expect(RunAnywhere.registeredTools().isEmpty)
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-test-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            try RunAnywhere.initialize(environment: .development, storageDirectory: home)
            await RunAnywhere.registerTool(definition) { _ in ["stale": ToolValue(true)] }
            await RunAnywhere.registerTool(definition) { arguments in
                ["echo": arguments["text"] ?? .null, "count": ToolValue(arguments.count)]
            }
            #expect(RunAnywhere.registeredTools().map(\.name) == ["echo"])
            let result = await RunAnywhere.executeTool(ToolCall(id: "1", name: "echo", arguments: ["text": "hi"]))
            #expect(result.output == .object(["count": 1, "echo": "hi"]))
            await RunAnywhere.registerTool(ToolDefinition(name: "", description: "nameless")) { _ in [:] }
            #expect(RunAnywhere.registeredTools().map(\.name) == ["echo"])
            await RunAnywhere.reset()
        }
    }
}
