import Foundation
import Testing

@_spi(Backend) @testable import RunAnywhere

/// The stand-ins for full Foundation's string trimming, `String(format:)` and `Thread`
/// (Support/): each must behave as the Foundation call it replaces.
@Suite("Helpers that stand in for full Foundation")
struct FoundationFreeHelpersTests {
    static let samples = [
        "", " ", "\n\t ", "text", "  padded  ", "\tlead", "trail\r\n", "\r\n mixed \u{00A0}\u{2003}",
        " inner  spaces stay ", "\u{2028}line separator\u{2029}", "ünïcödé ", " 👩‍👩‍👧 ", "a\u{0301} ",
    ]

    @Test("trimmed() removes what trimmingCharacters(in: .whitespacesAndNewlines) removes")
    func trimmedMatchesFoundation() {
        for sample in Self.samples {
            #expect(
                sample.trimmed() == sample.trimmingCharacters(in: .whitespacesAndNewlines),
                "\(sample.debugDescription)"
            )
        }
    }

    @Test("trimmedSpaces() removes what trimmingCharacters(in: .whitespaces) removes and keeps line breaks")
    func trimmedSpacesMatchesFoundation() {
        for sample in Self.samples {
            #expect(sample.trimmedSpaces() == sample.trimmingCharacters(in: .whitespaces), "\(sample.debugDescription)")
        }
        #expect("\n x \n".trimmedSpaces() == "\n x \n")
    }

    @Test("fixed(decimals:) writes what String(format: \"%.Nf\") writes")
    func fixedMatchesFormat() {
        let values: [Double] = [
            0, -0.0, 1, -1, 0.05, 0.15, 0.25, 2.675, 12.345, -12.345, 999.95, 1e-9, 123_456_789.987_654,
            1e21, -1e300, .greatestFiniteMagnitude, .infinity, -.infinity,
        ]
        for value in values {
            for decimals in [0, 1, 2, 3, 6] {
                #expect(
                    value.fixed(decimals: decimals) == String(format: "%.\(decimals)f", value),
                    "\(value) \(decimals)"
                )
            }
        }
        #expect(Double.nan.fixed(decimals: 1) == "nan")
        #expect(1.5.fixed(decimals: -3) == "2")
        #expect(1.0.fixed(decimals: 99) == "1." + String(repeating: "0", count: 20))
    }

    @Test("A worker thread runs its jobs in order under the name it was given, cut to 15 bytes")
    func workerThreadRunsJobsInOrderWithItsName() async throws {
        let worker = WorkerThread(name: "ä-worker-with-a-long-name")
        defer { worker.stop() }
        let names = try await (0..<3).asyncMap { index in
            try await worker.run { () -> String in
                let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
                return "\(index) \(name.trimmed())"
            }
        }
        #if os(Linux)
        // "ä" is two bytes: 15 bytes end after "-with-".
        #expect(names == ["0 ä-worker-with-", "1 ä-worker-with-", "2 ä-worker-with-"])
        #else
        #expect(names.map { $0.prefix(1) } == ["0", "1", "2"])
        #endif
    }

    @Test("String(printf:) writes what String(format:) writes for numbers")
    func printfMatchesFoundation() {
        let values: [Double] = [0, -0.5, 1.25, 3.14159, 12_345.678, 1e-7, 9.99e20, -273.15]
        for value in values {
            for format in ["%.0f", "%.2f", "%7.3f", "%6.2f%%", "[%5.1f s] ", "%e", "%g"] {
                #expect(String(printf: format, value) == String(format: format, value), "\(format) \(value)")
            }
        }
        for count in [0, 7, -42, Int.max] {
            #expect(
                String(printf: "%ld speakers, %5ld", count, count) == String(format: "%ld speakers, %5ld", count, count)
            )
        }
        #expect(String(printf: "no conversions") == "no conversions")
    }

    @Test("hexEncoded spells bytes as two lowercase hex digits each")
    func hexEncodedSpellsBytes() {
        let bytes: [UInt8] = [0, 1, 0x0F, 0x10, 0xAB, 0xFF]
        #expect(bytes.hexEncoded == "00010f10abff")
        #expect(bytes.hexEncoded == bytes.map { String(format: "%02x", $0) }.joined())
        #expect([UInt8]().hexEncoded == "")
    }

    @Test("percentDecoded decodes as removingPercentEncoding does, nil for broken escapes")
    func percentDecodedMatchesFoundation() {
        let samples = ["", "plain", "a%20b", "%2Fdefs%2Fname", "caf%C3%A9", "%7e~", "50%", "%4", "%zz", "%FF", "%C3"]
        for sample in samples {
            #expect(sample.percentDecoded == sample.removingPercentEncoding, "\(sample)")
        }
    }

    @Test("readableDescription names the system's reason for file errors and keeps SDK messages")
    func readableDescriptionNamesTheReason() {
        let missing = #expect(throws: (any Error).self) {
            try Data(contentsOf: URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/file"))
        }
        #expect(missing?.readableDescription == "No such file or directory")
        #expect(SDKException(.invalidInput, "Bad input").readableDescription == "Bad input")
        #expect(POSIXError(.EACCES).readableDescription == "Permission denied")
    }

    @Test("FileSystem.status, fileSize and leadingBytes read what stat(2) and the file say")
    func fileStatusMatchesTheFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fs-status-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("five.bin")
        try Data([1, 2, 3, 4, 5]).write(to: file)
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("sub/deeper"),
            withIntermediateDirectories: true
        )
        try Data(count: 1000).write(to: folder.appendingPathComponent("sub/deeper/k.bin"))
        #expect(FileSystem.fileSize(file) == 5)
        #expect(FileSystem.fileSize(folder) == nil)
        #expect(FileSystem.status(folder.path)?.isDirectory == true)
        #expect(FileSystem.status(folder.appendingPathComponent("missing").path) == nil)
        #expect(FileSystem.leadingBytes(of: file, count: 3) == [1, 2, 3])
        #expect(FileSystem.leadingBytes(of: file, count: 9) == [1, 2, 3, 4, 5])
        #expect(FileSystem.leadingBytes(of: folder.appendingPathComponent("missing"), count: 4) == nil)
        #expect(FileSystem.allocatedSize(of: folder) == 1005)
        #expect(FileSystem.allocatedSize(of: file) == 5)
    }

    @Test("A stopped worker thread refuses new jobs with a typed error")
    func stoppedWorkerRefusesJobs() async {
        let worker = WorkerThread(name: "stopped")
        worker.stop()
        await #expect(throws: SDKException.self) { try await worker.run { 1 } }
        #expect(!worker.submit {})
    }

    @Test("Detached work runs off the caller's thread and returns its value")
    func detachedWorkReturnsItsValue() async {
        let value = await runOnDetachedThread(name: "detached-test") {
            (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmed() ?? "detached-test"
        }
        #expect(value == "detached-test")
    }
}

extension Sequence where Element: Sendable {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
