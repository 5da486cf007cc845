import Foundation
import RunAnywhereTesting
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Event bus")
struct EventBusTests {
    @Test("Subscribers receive events in publication order")
    func ordered() async {
        let bus = EventBus()
        let stream = bus.events
        for i in 0..<50 { bus.publish(.modelRegistered(modelId: "m\(i)")) }
        var ids: [String] = []
        for await event in stream {
            if case .modelRegistered(let id) = event.kind { ids.append(id) }
            if ids.count == 50 { break }
        }
        #expect(ids == (0..<50).map { "m\($0)" })
    }

    @Test("A filtered subscription sees only its categories")
    func filtered() async {
        let bus = EventBus()
        let llm = bus.events(for: .llm)
        bus.publish(.modelRegistered(modelId: "a"))
        bus.publish(.generationStarted(generationId: UUID(), modelId: "a"))
        bus.publish(.initCompleted(durationMs: 1))
        bus.publish(.generationCancelled(generationId: UUID(), modelId: "a", tokens: 2))
        var names: [String] = []
        for await event in llm {
            #expect(event.category == .llm)
            names.append(event.kind.name)
            if names.count == 2 { break }
        }
        #expect(names == ["generation_started", "generation_cancelled"])
    }

    @Test("A subscription ends when its reader stops and is then forgotten")
    func unsubscribes() async {
        let bus = EventBus()
        do {
            let stream = bus.events
            #expect(bus.subscriberCount == 1)
            bus.publish(.initStarted(environment: .development))
            for await _ in stream { break }
        }
        // The stream is gone, and its termination handler, which runs as the last reference
        // goes, removed it.
        #expect(bus.subscriberCount == 0)
    }

    @Test("Shutting an instance down ends its event streams after what was published, and later ones at once")
    func shutdownEndsStreams() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-det-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let sdk = try RunAnywhereSDK(home: home, modules: [DeterministicBackend()])
        try registerDeterministicModels(in: sdk)
        let everything = sdk.events.events
        let models = sdk.events.events(for: .model)
        try await sdk.loadModel("test-llm")
        await sdk.shutdown()
        await sdk.shutdown()

        // Each loop ends by itself: the stream finishes once its buffer is read.
        var names: [String] = []
        for await event in everything { names.append(event.kind.name) }
        #expect(names.contains("model_load_completed"))
        #expect(names.contains("model_unloaded"))
        var modelNames: [String] = []
        for await event in models { modelNames.append(event.kind.name) }
        #expect(modelNames.last == "model_unloaded")
        #expect(sdk.events.subscriberCount == 0)
        var late = 0
        for await _ in sdk.events.events { late += 1 }
        #expect(late == 0)
    }
}
