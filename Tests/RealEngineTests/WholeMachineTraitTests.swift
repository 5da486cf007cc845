import RealEngineTestSupport
import Synchronization
import Testing

/// Not itself under the trait: it takes the machine twice, through the trait's own scope.
@Suite("The whole-machine trait")
struct WholeMachineTraitTests {
    @Test("A second holder gets in only when the first has left")
    func exclusive() async throws {
        let test = try #require(Test.current)
        let testCase = try #require(Test.Case.current)
        let trait = WholeMachineTrait()
        let log = Log()
        let (firstIn, firstInSignal) = AsyncStream.makeStream(of: Void.self)
        let (leave, leaveSignal) = AsyncStream.makeStream(of: Void.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await trait.provideScope(for: test, testCase: testCase) {
                    log.add("first in")
                    firstInSignal.yield()
                    for await _ in leave { break }
                    log.add("first out")
                }
            }
            for await _ in firstIn { break }
            group.addTask {
                try await trait.provideScope(for: test, testCase: testCase) {
                    log.add("second in")
                }
            }
            // Every chance for the second to get in while the first holds the machine.
            for _ in 0..<200 { await Task.yield() }
            #expect(log.entries == ["first in"])
            leaveSignal.yield()
            try await group.waitForAll()
        }
        #expect(log.entries == ["first in", "first out", "second in"])
    }
}

/// What happened, in order, from any task.
private final class Log: Sendable {
    private let lines = Mutex<[String]>([])

    func add(_ line: String) { lines.withLock { $0.append(line) } }

    var entries: [String] { lines.withLock { $0 } }
}
