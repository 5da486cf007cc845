import Testing

@testable import RunAnywhere

@Suite("The download state machine, without I/O")
struct DownloadStateMachineTests {
    static func machine(
        _ sizes: [Int64?],
        archive: Bool = false,
        onDisk: Int64 = 0
    ) -> DownloadStateMachine {
        DownloadStateMachine(
            modelId: "m",
            files: sizes.enumerated().map { ("f\($0.offset)", $0.element, "http") },
            isArchive: archive,
            bytesOnDisk: onDisk
        )
    }

    @Test(
        "With every size registered it checks the space, fetches each file in order, then verifies, stages and installs"
    )
    func happyPath() {
        var machine = Self.machine([100, 50])
        #expect(machine.start() == .checkSpace(needed: 150))
        #expect(machine.spaceAvailable(150) == .fetch(index: 0, downloadedBefore: 0))
        #expect(machine.fetched(index: 0, reported: 100, written: 100) == .fetch(index: 1, downloadedBefore: 100))
        #expect(machine.fetched(index: 1, reported: 50, written: 50) == .verifyChecksums(downloaded: 150))
        #expect(machine.verified() == .stage(downloaded: 150))
        #expect(machine.staged() == .install)
        #expect(machine.installed() == .finished)
    }

    @Test("Unknown sizes are asked for in order; partial files count as downloaded and an archive needs room twice")
    func sizesAndSpace() {
        var machine = Self.machine([nil, 40, nil], onDisk: 30)
        #expect(machine.start() == .resolveSize(index: 0))
        #expect(machine.sizeResolved(index: 0, size: 60) == .resolveSize(index: 2))
        #expect(machine.totalBytes == nil)
        #expect(machine.sizeResolved(index: 2, size: 100) == .checkSpace(needed: 200 - 30))
        #expect(machine.totalBytes == 200)
        #expect(machine.size(of: 2) == 100)

        var archive = Self.machine([1_000], archive: true, onDisk: 200)
        #expect(archive.start() == .checkSpace(needed: 1_000 - 200 + 1_000))
    }

    @Test("A size no strategy can tell skips the space check: the transfer finds out")
    func unknownTotal() {
        var machine = Self.machine([nil, 10])
        #expect(machine.start() == .resolveSize(index: 0))
        #expect(machine.sizeResolved(index: 0, size: nil) == .fetch(index: 0, downloadedBefore: 0))
        #expect(machine.fetched(index: 0, reported: 7, written: 7) == .fetch(index: 1, downloadedBefore: 7))
    }

    @Test("Too little room is insufficient_storage, with both figures")
    func notEnoughSpace() throws {
        var machine = Self.machine([2 * 1_048_576])
        #expect(machine.start() == .checkSpace(needed: 2 * 1_048_576))
        guard case .fail(let error) = machine.spaceAvailable(1_048_576) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == .insufficientStorage)
        #expect(error.message.contains("2") && error.message.contains("1"), "\(error.message)")
    }

    @Test(
        "A strategy whose report and file disagree, or whose size is not the registered one, fails and discards the part"
    )
    func inconsistentTransfers() {
        var wrote = Self.machine([100])
        _ = wrote.start()
        _ = wrote.spaceAvailable(1_000)
        guard case .discardPartAndFail(0, let error) = wrote.fetched(index: 0, reported: 100, written: 90) else {
            Issue.record("expected the part discarded")
            return
        }
        #expect(error.code == .downloadFailed)
        #expect(error.message.contains("reported 100 bytes of f0 but wrote 90"), "\(error.message)")

        var sized = Self.machine([100])
        _ = sized.start()
        _ = sized.spaceAvailable(1_000)
        guard case .discardPartAndFail(0, let mismatch) = sized.fetched(index: 0, reported: 80, written: 80) else {
            Issue.record("expected the part discarded")
            return
        }
        #expect(mismatch.message.contains("but 100 were expected"), "\(mismatch.message)")
        #expect(mismatch.recoverySuggestion?.contains("registered size") == true)
    }

    @Test("A cancellation ends the download as download_cancelled, whatever the step")
    func cancellation() {
        var machine = Self.machine([nil])
        #expect(machine.start() == .resolveSize(index: 0))
        #expect(machine.cancelled() == .fail(SDKException(.downloadCancelled, "The download was cancelled")))
        // Nothing after it is taken for progress.
        guard case .fail(let error) = machine.fetched(index: 0, reported: 1, written: 1) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == .internalError)
    }

    @Test("An event the state does not expect is an internal error, not a wrong step")
    func unexpectedEvents() {
        var machine = Self.machine([10])
        guard case .fail(let early) = machine.verified() else {
            Issue.record("expected a failure")
            return
        }
        #expect(early.code == .internalError)
        var other = Self.machine([10, 10])
        _ = other.start()
        _ = other.spaceAvailable(100)
        guard case .fail(let wrongFile) = other.fetched(index: 1, reported: 10, written: 10) else {
            Issue.record("expected a failure")
            return
        }
        #expect(wrongFile.message.contains("file 1"), "\(wrongFile.message)")
    }
}
