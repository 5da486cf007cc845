import Foundation
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Download building blocks")
struct DownloadUnitTests {
    @Test("Archive entries that stay inside the folder are accepted and normalised")
    func safeEntries() throws {
        #expect(try ArchiveExtractor.checkedPath("model.onnx", kind: .file) == "model.onnx")
        #expect(try ArchiveExtractor.checkedPath("./voice/model.onnx", kind: .file) == "voice/model.onnx")
        #expect(try ArchiveExtractor.checkedPath("voice//tokens.txt", kind: .file) == "voice/tokens.txt")
        #expect(try ArchiveExtractor.checkedPath("./", kind: .directory) == nil)
        #expect(
            try ArchiveExtractor.checkedPath("voice/current", kind: .symlink(target: "v2/model.onnx"))
                == "voice/current"
        )
        #expect(try ArchiveExtractor.checkedPath("voice/up", kind: .symlink(target: "../other.onnx")) == "voice/up")
        #expect(
            try ArchiveExtractor.checkedPath("copy.onnx", kind: .hardlink(target: "./voice/model.onnx")) == "copy.onnx"
        )
    }

    @Test(
        "Archive entries that would land outside the folder are refused",
        arguments: [
            ("../evil", ArchiveExtractor.EntryKind.file),
            ("voice/../../evil", .file),
            ("/etc/passwd", .file),
            ("..\\evil", .file),
            ("C:\\evil", .file),
            ("link", .symlink(target: "/etc")),
            ("voice/link", .symlink(target: "../../etc")),
            ("link", .symlink(target: "..")),
            ("hard", .hardlink(target: "../outside")),
            ("hard", .hardlink(target: "/etc/shadow")),
            ("dev", .other("device file")),
            ("", .file),
        ]
    )
    func unsafeEntries(path: String, kind: ArchiveExtractor.EntryKind) {
        #expect(throws: SDKException.self) { try ArchiveExtractor.checkedPath(path, kind: kind) }
        do {
            _ = try ArchiveExtractor.checkedPath(path, kind: kind)
        } catch {
            #expect(error.code == .unsafeArchive)
        }
    }

    @Test("Archive types are told from file names")
    func archiveTypes() {
        #expect(ArchiveType(fileName: "voice.tar.bz2") == .tarBz2)
        #expect(ArchiveType(fileName: "VOICE.TGZ") == .tarGz)
        #expect(ArchiveType(fileName: "m.tar.xz") == .tarXz)
        #expect(ArchiveType(fileName: "m.zip") == .zip)
        #expect(ArchiveType(fileName: "m.gguf") == nil)
    }

    @Test("Remote files check their URL, name, checksum and size")
    func remoteFileValidation() throws {
        let url = URL(string: "https://example.com/models/m.gguf")!
        #expect(RemoteFile(url: url).fileName == "m.gguf")
        #expect(
            RemoteFile(url: url, sha256: String(repeating: "AB", count: 32)).sha256
                == String(repeating: "ab", count: 32)
        )
        try RemoteFile(url: url).validate()
        #expect(throws: SDKException.self) { try RemoteFile(url: URL(string: "file:///m.gguf")!).validate() }
        #expect(throws: SDKException.self) { try RemoteFile(url: url, fileName: "../m.gguf").validate() }
        #expect(throws: SDKException.self) { try RemoteFile(url: url, sha256: "xyz").validate() }
        #expect(throws: SDKException.self) { try RemoteFile(url: url, sizeBytes: -1).validate() }
    }

    @Test("Retry delays double from the first delay up to the cap")
    func backoff() {
        let config = DownloadConfiguration(initialRetryDelay: 0.5, maxRetryDelay: 3)
        #expect([1, 2, 3, 4, 5].map { config.delay(beforeRetry: $0) } == [0.5, 1, 2, 3, 3])
    }

    @Test("Overall progress runs through the stages in order")
    func overallProgress() {
        let half = DownloadProgress(modelId: "m", stage: .downloading, stageProgress: 0.5)
        let validating = DownloadProgress(modelId: "m", stage: .validating, stageProgress: 0)
        let done = DownloadProgress(modelId: "m", stage: .completed, stageProgress: 1)
        #expect(half.overallProgress == 0.4)
        #expect(validating.overallProgress == 0.8)
        #expect(done.overallProgress == 1 && done.isFinal)
    }

    @Test("Byte counts in messages read as numbers, zero included")
    func byteCountsInMessages() {
        #expect(Int64(0).formattedBytes(.binary) == "0 bytes")
        #expect(Int64(10 << 20).formattedBytes(.binary).hasPrefix("10"))
    }
}
