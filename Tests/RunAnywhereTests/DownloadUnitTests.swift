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

    /// A folder holding empty files at `paths`, for `body`.
    func withLayout(_ paths: [String], _ body: (URL) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("layout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        for path in paths {
            let file = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data().write(to: file)
        }
        try body(folder)
    }

    @Test("An unpacked archive's model file is found where its structure says, and an unclear layout is refused")
    func archiveStructures() throws {
        try withLayout(["pack/model.gguf", "pack/README.md"]) { folder in
            let structures: [ArchiveStructure] = [.singleFileNested, .unknown, .nestedDirectory]
            for structure in structures {
                let primary = try structure.primaryFile(in: folder)
                #expect(primary == "pack/model.gguf", "\(structure)")
            }
            let flat = try #require(throws: SDKException.self) {
                try ArchiveStructure.directoryBased.primaryFile(in: folder)
            }
            #expect(flat.code == .invalidArchive)
        }
        // Voices and vocabularies are .bin files too: weights of another kind come first.
        try withLayout(["voice/model.onnx", "voice/voices.bin", "voice/tokens.txt", "voice/espeak-ng-data/phontab"]) {
            folder in
            let primary = try ArchiveStructure.nestedDirectory.primaryFile(in: folder)
            #expect(primary == "voice/model.onnx")
        }
        // A projector is never the primary file; hidden entries are skipped.
        try withLayout(["smolvlm.gguf", "mmproj-smolvlm.gguf", ".cache/other.gguf"]) { folder in
            let primary = try ArchiveStructure.directoryBased.primaryFile(in: folder)
            #expect(primary == "smolvlm.gguf")
        }
        try withLayout(["encoder.onnx", "decoder.onnx", "tokens.txt"]) { folder in
            let several = try #require(throws: SDKException.self) {
                try ArchiveStructure.directoryBased.primaryFile(in: folder)
            }
            #expect(several.code == .invalidArchive)
            #expect(several.message.contains("decoder.onnx, encoder.onnx"))
        }
        try withLayout(["a/model.onnx", "b/model.onnx"]) { folder in
            #expect(throws: SDKException.self) { try ArchiveStructure.nestedDirectory.primaryFile(in: folder) }
        }
        try withLayout(["notes.txt", "deep/er/still/model.gguf"]) { folder in
            let none = try #require(throws: SDKException.self) { try ArchiveStructure.unknown.primaryFile(in: folder) }
            #expect(none.message.contains("no model file"))
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
