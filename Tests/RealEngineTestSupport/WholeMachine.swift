import Foundation
import RunAnywhere
import Synchronization
import Testing

/// Runs each test case it marks alone among every test case so marked, in any suite of any
/// test target: the real-engine tests, spread over one target per backend, still take the
/// machine's cores one at a time. Swift Testing's `.serialized` orders the tests of one suite
/// only. Tests without it are not held back by it, though a test waiting for the machine takes
/// one of the runner's parallel places while it waits.
///
/// The scope is each test case (Swift Testing asks a recursive suite trait for one per case),
/// so a suite's own scope never holds the machine while its tests wait for it.
package struct WholeMachineTrait: TestTrait, SuiteTrait, TestScoping {
    /// The trait; ``wholeMachine`` is the way to write it.
    package init() {}

    /// It reaches every test of a suite it marks.
    package var isRecursive: Bool { true }

    package func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        await MachineLock.shared.acquire()
        let clock = ContinuousClock()
        let start = clock.now
        defer { MachineTimeLog.record(test.name, held: clock.now - start) }
        do {
            try await function()
        } catch {
            await MachineLock.shared.release()
            throw error
        }
        await MachineLock.shared.release()
    }
}

extension Trait where Self == WholeMachineTrait {
    /// The test holds the whole machine while it runs; see ``WholeMachineTrait``.
    package static var wholeMachine: Self { Self() }
}

/// One holder at a time, the others served in the order they asked.
private actor MachineLock {
    static let shared = MachineLock()

    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            held = false
        } else {
            // The next holder takes over without the lock ever being free in between.
            waiting.removeFirst().resume()
        }
    }
}

/// How long each test held the machine, appended to the file `RUNANYWHERE_MACHINE_TIME_LOG`
/// names (when it names one): the serialized tests are the real-engine lane's critical path,
/// and their durations as Swift Testing reports them include the time spent waiting.
private enum MachineTimeLog {
    private static let lock = Mutex(())

    static func record(_ name: String, held: Duration) {
        guard let path = ProcessInfo.processInfo.environment["RUNANYWHERE_MACHINE_TIME_LOG"], !path.isEmpty
        else { return }
        let line = String(format: "%.1f\t%@\n", held.seconds, name)
        lock.withLock { _ in
            guard let handle = FileHandle(forWritingAtPath: path) ?? create(path) else { return }
            defer { try? handle.close() }
            _ = try? handle.seekToEnd()
            try? handle.write(contentsOf: Data(line.utf8))
        }
    }

    private static func create(_ path: String) -> FileHandle? {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return FileHandle(forWritingAtPath: path)
    }
}
