#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A model shipped as an archive, and what is inside it.
public struct ModelArchive: Sendable, Codable, Equatable {
    /// Where to fetch the archive.
    public var url: URL
    /// Its format.
    public var type: ArchiveType
    /// The path, inside the archive, of the file engines open (e.g. `voice/model.onnx`).
    public var primaryFile: String
    /// Other paths the archive must contain; the download fails if one is missing.
    public var expectedFiles: [String]
    /// Expected SHA-256 of the archive itself.
    public var sha256: String?
    /// Size of the archive in bytes, when known.
    public var sizeBytes: Int64?
    /// How the archive is laid out, when ``primaryFile`` is left empty: the file engines open
    /// is then found once it is unpacked (``ArchiveStructure/primaryFile(in:)``).
    public var structure: ArchiveStructure?

    /// Describes an archive; `type` defaults to what the URL's suffix says. With a
    /// `structure`, `primaryFile` may be empty: it is found once the archive is unpacked.
    public init(
        url: URL,
        type: ArchiveType? = nil,
        primaryFile: String,
        expectedFiles: [String] = [],
        sha256: String? = nil,
        sizeBytes: Int64? = nil,
        structure: ArchiveStructure? = nil
    ) throws(SDKException) {
        guard let type = type ?? ArchiveType(url: url) else {
            throw SDKException(
                .invalidInput,
                "Cannot tell the archive type of '\(url.lastPathComponent)'",
                recovery: "Name it: one of \(ArchiveType.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        self.url = url
        self.type = type
        self.primaryFile = primaryFile
        self.expectedFiles = expectedFiles
        self.sha256 = sha256?.lowercased()
        self.sizeBytes = sizeBytes
        self.structure = structure
    }
}

/// The archive formats models ship in.
public enum ArchiveType: String, Sendable, Codable, CaseIterable {
    /// A zip archive (`.zip`).
    case zip
    /// A gzip-compressed tar archive (`.tar.gz`, `.tgz`).
    case tarGz = "tar.gz"
    /// A bzip2-compressed tar archive (`.tar.bz2`, `.tbz2`).
    case tarBz2 = "tar.bz2"
    /// An xz-compressed tar archive (`.tar.xz`, `.txz`).
    case tarXz = "tar.xz"

    /// The type a URL's suffix names (`.tgz` counts as `.tar.gz`); `nil` for any other suffix.
    public init?(url: URL) {
        self.init(fileName: url.lastPathComponent)
    }

    /// The type a file name's suffix names; `nil` for any other suffix.
    public init?(fileName: String) {
        let name = fileName.lowercased()
        if name.hasSuffix(".zip") {
            self = .zip
        } else if name.hasSuffix(".tar.gz") || name.hasSuffix(".tgz") {
            self = .tarGz
        } else if name.hasSuffix(".tar.bz2") || name.hasSuffix(".tbz2") {
            self = .tarBz2
        } else if name.hasSuffix(".tar.xz") || name.hasSuffix(".txz") {
            self = .tarXz
        } else {
            return nil
        }
    }

    /// `fileName` without this type's suffix (`voice.tar.bz2` and `voice.tbz2` give `voice`).
    func stem(of fileName: String) -> String {
        var name = fileName
        for suffix in [".\(rawValue)", ".tgz", ".tbz2", ".txz"] where name.lowercased().hasSuffix(suffix) {
            name.removeLast(suffix.count)
            break
        }
        return name
    }
}

extension ArchiveType {
    /// The suffix the type names, without the dot (the original SDK's name for `rawValue`).
    public var fileExtension: String { rawValue }

    /// The type a URL's suffix names (the original SDK's factory for ``init(url:)``).
    public static func from(url: URL) -> ArchiveType? { ArchiveType(url: url) }
}
