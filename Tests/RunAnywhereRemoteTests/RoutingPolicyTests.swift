import Foundation
import Logging
import RunAnywhere
import RunAnywhereRemote
import RunAnywhereServer
import RunAnywhereTestSupport
import RunAnywhereTesting
import Testing

@Suite("Routing between this device and a remote server", .serialized)
struct RoutingPolicyTests {
    /// Top-k and repetition penalty as the server's (neutral) ones, so both sides give one text.
    static let options = LLMGenerationOptions(maxTokens: 12, temperature: 0, topK: 0, repetitionPenalty: 1)

    @Test("Each policy runs a model that is here and remote on the side it names, and says where")
    func policies() async throws {
        let remote = try await RemoteSide.start()
        try await withDeterministicSDK(adding: [RemoteModule()]) { sdk in
            // The local deterministic model gains the server's copy as its remote side.
            let model = try sdk.registerRemoteModel(
                id: DeterministicModels.llm,
                baseURL: remote.baseURL,
                remoteModelName: DeterministicModels.llm
            )
            #expect(model.framework == .deterministic && model.isDownloaded && model.remote != nil)
            try await sdk.loadModel(DeterministicModels.llm)

            func ranOn() async throws -> ExecutionTarget {
                try await sdk.generate("Hello", options: Self.options).executedOn
            }
            #expect(sdk.routingPolicy == .preferLocal)
            #expect(try await ranOn() == .local)
            sdk.routing = RoutingConfiguration(policy: .preferLocal, memoryBudgetBytes: 10)
            #expect(try await ranOn() == .remote, "a model over the memory budget runs remotely")
            sdk.routing = RoutingConfiguration(policy: .preferRemote)
            #expect(try await ranOn() == .remote)
            sdk.routingPolicy = .remoteOnly
            #expect(try await ranOn() == .remote)
            sdk.routingPolicy = .localOnly
            #expect(try await ranOn() == .local)

            // A remote-only model has no local side to fall back on.
            try sdk.registerRemoteModel(
                id: "only-remote",
                baseURL: remote.baseURL,
                remoteModelName: DeterministicModels.llm
            )
            let refused = await #expect(throws: SDKException.self) { try await sdk.loadModel("only-remote") }
            #expect(refused?.code == .modelFileNotFound && refused?.message.contains("local-only") == true)
            sdk.routingPolicy = .preferLocal
            try await sdk.loadModel("only-remote")
            #expect(try await ranOn() == .remote)
        }
        await remote.stop()
    }

    @Test(
        "prefer-remote falls back to this device without an error once the server is gone; remote-only then fails typed"
    )
    func serverGoesAway() async throws {
        let remote = try await RemoteSide.start()
        try await withDeterministicSDK(adding: [RemoteModule()]) { sdk in
            try sdk.registerRemoteModel(
                id: DeterministicModels.llm,
                baseURL: remote.baseURL,
                remoteModelName: DeterministicModels.llm
            )
            try sdk.registerRemoteModel(
                id: DeterministicModels.embedding,
                baseURL: remote.baseURL,
                remoteModelName: DeterministicModels.embedding
            )
            try sdk.registerRemoteModel(
                id: DeterministicModels.stt,
                baseURL: remote.baseURL,
                remoteModelName: DeterministicModels.stt
            )
            sdk.routing = RoutingConfiguration(policy: .preferRemote, retryUnreachableAfterSeconds: 0)
            try await sdk.loadModel(DeterministicModels.llm)
            try await sdk.loadEmbeddingModel(DeterministicModels.embedding)
            try await sdk.loadSTTModel(DeterministicModels.stt)
            let audio = DeterministicBackend.speech(for: "turn on the lights")
            let tools = [RemoteBackendTests.weather]
            try sdk.tools.register(RemoteBackendTests.weather) { _ in ["temperature": 20] }
            let toolOptions = ToolCallingOptions(toolChoice: .tool("get_weather"), maxIterations: 2)

            let before = try await sdk.generate("Hello", options: Self.options)
            #expect(before.executedOn == .remote)
            #expect(try await sdk.embeddings(for: ["a cat"]).executedOn == .remote)
            #expect(try await sdk.transcribe(audio).executedOn == .remote)
            #expect(
                try await sdk.generateWithTools("Weather?", tools: tools, toolOptions: toolOptions).generation
                    .executedOn == .remote
            )

            await remote.stop()
            let after = try await sdk.generate("Hello", options: Self.options)
            #expect(after.executedOn == .local)
            #expect(after.text == before.text, "the same deterministic model on both sides")
            var streamed = ""
            for try await event in try await sdk.generateStream("Hello", options: Self.options) {
                if case .token(let text, _) = event { streamed += text }
            }
            #expect(streamed == after.text)
            #expect(try await sdk.embeddings(for: ["a cat"]).executedOn == .local)
            #expect(try await sdk.transcribe(audio).executedOn == .local)
            let toolsAfter = try await sdk.generateWithTools("Weather?", tools: tools, toolOptions: toolOptions)
            #expect(toolsAfter.generation.executedOn == .local && toolsAfter.toolCalls.first?.name == "get_weather")

            sdk.routingPolicy = .remoteOnly
            let error = await #expect(throws: SDKException.self) {
                _ = try await sdk.generate("Hello", options: Self.options)
            }
            #expect(error?.code == .remoteUnreachable, "\(String(describing: error))")
        }
    }

    @Test("A model loaded before it gained a remote endpoint is loaded again with its remote side")
    func endpointAddedWhileLoaded() async throws {
        let remote = try await RemoteSide.start()
        try await withDeterministicSDK(adding: [RemoteModule()]) { sdk in
            try await sdk.loadModel(DeterministicModels.llm)
            try sdk.registerRemoteModel(
                id: DeterministicModels.llm,
                baseURL: remote.baseURL,
                remoteModelName: DeterministicModels.llm
            )
            sdk.routingPolicy = .remoteOnly
            try await sdk.loadModel(DeterministicModels.llm)
            #expect(try await sdk.generate("Hello", options: Self.options).executedOn == .remote)
        }
        await remote.stop()
    }

    @Test("A server already down when its side is first needed does not fail a prefer-remote request")
    func remoteSideNeverLoaded() async throws {
        let remote = try await RemoteSide.start()
        try await withDeterministicSDK(adding: [RemoteModule()]) { sdk in
            try sdk.registerRemoteModel(
                id: DeterministicModels.llm,
                baseURL: remote.baseURL,
                remoteModelName: DeterministicModels.llm
            )
            // Loaded under prefer-local: only this device's side is up.
            try await sdk.loadModel(DeterministicModels.llm)
            await remote.stop()
            sdk.routingPolicy = .preferRemote
            #expect(try await sdk.generate("Hello", options: Self.options).executedOn == .local)
        }
    }

    @Test("A stream cut off mid-way ends with a typed error; under prefer-local the retry runs here")
    func cutOffMidStream() async throws {
        let broken = try await ScriptedOpenAIServer.start()
        try await withDeterministicSDK(adding: [RemoteModule()]) { sdk in
            try sdk.registerRemoteModel(
                id: DeterministicModels.llm,
                baseURL: broken.baseURL(.truncated),
                remoteModelName: "m"
            )
            // Over the budget, so the server runs it first.
            sdk.routing = RoutingConfiguration(policy: .preferLocal, memoryBudgetBytes: 10)
            try await sdk.loadModel(DeterministicModels.llm)
            var received = ""
            let error = await #expect(throws: SDKException.self) {
                for try await event in try await sdk.generateStream("Hello", options: Self.options) {
                    if case .token(let text, _) = event { received += text }
                }
            }
            #expect(received == "Hel", "the text that arrived before the cut reached the caller")
            #expect(error?.code == .remoteUnreachable, "\(String(describing: error))")
            let retry = try await sdk.generate("Hello", options: Self.options)
            #expect(retry.executedOn == .local)
            #expect(broken.requests(.truncated) == 1, "the retry did not go to the server that failed")
        }
        await broken.stop()
    }

    @Test("Escalation re-runs a transcript remotely only when its local confidence is below the threshold")
    func sttEscalation() async throws {
        let remote = try await RemoteSide.start()
        try await withDeterministicSDK(adding: [RemoteModule()]) { sdk in
            try sdk.registerRemoteModel(
                id: DeterministicModels.stt,
                baseURL: remote.baseURL,
                remoteModelName: DeterministicModels.stt
            )
            try await sdk.loadSTTModel(DeterministicModels.stt)
            let audio = DeterministicBackend.speech(for: "set a timer for ten minutes")
            sdk.routingPolicy = .escalateBelowConfidence(0)
            let kept = try await sdk.transcribe(audio)
            #expect(kept.executedOn == .local)
            // Above every confidence (the deterministic transcript reports 1): always escalates.
            sdk.routingPolicy = .escalateBelowConfidence(Float(1).nextUp)
            let escalated = try await sdk.transcribe(audio)
            #expect(escalated.executedOn == .remote)
            #expect(escalated.text == kept.text)
            // With the server gone the local transcript stands.
            await remote.stop()
            sdk.routing = RoutingConfiguration(
                policy: .escalateBelowConfidence(Float(1).nextUp),
                retryUnreachableAfterSeconds: 0
            )
            #expect(try await sdk.transcribe(audio).executedOn == .local)
        }
    }

    @Test("Policies parse from their names, and a bad one is refused by name")
    func parsing() throws {
        for policy in [
            RoutingPolicy.localOnly, .remoteOnly, .preferLocal, .preferRemote, .escalateBelowConfidence(0.5),
        ] {
            #expect(try RoutingPolicy(parsing: policy.description) == policy)
        }
        #expect(throws: SDKException.self) { try RoutingPolicy(parsing: "sometimes") }
        #expect(throws: SDKException.self) { try RoutingPolicy(parsing: "escalate-below-2") }
    }
}
