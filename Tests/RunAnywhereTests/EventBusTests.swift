import Foundation
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Event bus")
struct EventBusTests {
    @Test("Subscribers receive events in publication order")
    func ordered() async {
        let bus = EventBus()
        let stream = bus.events()
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
            let stream = bus.events()
            #expect(bus.subscriberCount == 1)
            bus.publish(.initStarted(environment: .development))
            for await _ in stream { break }
        }
        // The stream is gone: its termination handler removed it.
        for _ in 0..<100 where bus.subscriberCount > 0 { try? await Task.sleep(for: .milliseconds(5)) }
        #expect(bus.subscriberCount == 0)
    }
}
