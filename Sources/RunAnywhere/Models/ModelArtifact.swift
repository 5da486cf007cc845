import Foundation

/// Where a model's files come from, and how they sit in the model's folder once downloaded.
///
/// ```swift
/// // One file
/// .file(RemoteFile(url: URL(string: "https://example.com/smollm2.gguf")!))
/// // An archive with a folder inside
/// .archive(ModelArchive(url: URL(string: "https://example.com/voice.tar.bz2")!,
///                       primaryFile: "voice/model.onnx", expectedFiles: ["voice/tokens.txt"]))
/// // A model and its side files
/// .files([model, tokens], primaryFile: "model.onnx")
/// ```
public enum ModelArtifact: Sendable, Codable, Equatable {
    /// One file, stored under its ``RemoteFile/fileName``.
    case file(RemoteFile)
    /// An archive unpacked into the model's folder, keeping its inner layout.
    case archive(ModelArchive)
    /// Several files side by side in the model's folder; `primaryFile` is the one engines open.
    case files([RemoteFile], primaryFile: String)

    /// The primary file's path relative to the model's folder.
    public var primaryPath: String {
        switch self {
        case .file(let file): file.fileName
        case .archive(let archive): archive.primaryFile
        case .files(_, let primary): primary
        }
    }

    /// The files to fetch, in order.
    public var remoteFiles: [RemoteFile] {
        switch self {
        case .file(let file): [file]
        case .archive(let archive):
            [RemoteFile(url: archive.url, fileName: "archive.\(archive.type.rawValue)",
                        sha256: archive.sha256, sizeBytes: archive.sizeBytes)]
        case .files(let files, _): files
        }
    }

    /// Bytes to fetch, when every file's size is known.
    public var knownDownloadSize: Int64? {
        remoteFiles.reduce(Int64(0) as Int64?) { total, file in
            guard let total, let size = file.sizeBytes else { return nil }
            return total + size
        }
    }

    /// Checks URLs, file names and checksums.
    public func validate() throws(SDKException) {
        for file in remoteFiles { try file.validate() }
        switch self {
        case .file:
            break
        case .archive(let archive):
            for path in [archive.primaryFile] + archive.expectedFiles {
                try Self.validateRelativePath(path, what: "archive entry")
            }
        case .files(let files, let primary):
            guard !files.isEmpty else { throw SDKException(.invalidInput, "A multi-file model needs at least one file") }
            let names = files.map(\.fileName)
            guard Set(names).count == names.count else {
                throw SDKException(.invalidInput, "The files of a multi-file model need distinct names (got \(names.joined(separator: ", ")))")
            }
            guard names.contains(primary) else {
                throw SDKException(.invalidInput, "The primary file '\(primary)' is not among the files \(names.joined(separator: ", "))")
            }
        }
    }

    /// A path inside a model's folder: relative, no `..`, no empty parts.
    static func validateRelativePath(_ path: String, what: String) throws(SDKException) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !path.isEmpty, !path.hasPrefix("/"), !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            throw SDKException(.invalidInput, "The \(what) '\(path)' must be a relative path inside the model's folder")
        }
    }
}

/// One file to download.
public struct RemoteFile: Sendable, Codable, Equatable {
    /// Where to fetch it (`http` or `https`).
    public var url: URL
    /// The name it gets in the model's folder.
    public var fileName: String
    /// Expected SHA-256, lowercase hex; checked after the download when set.
    public var sha256: String?
    /// Expected size in bytes, when known: used for the disk-space check and progress.
    public var sizeBytes: Int64?

    /// A file named after the last component of its URL unless `fileName` says otherwise.
    public init(url: URL, fileName: String? = nil, sha256: String? = nil, sizeBytes: Int64? = nil) {
        self.url = url
        self.fileName = fileName ?? url.lastPathComponent
        self.sha256 = sha256?.lowercased()
        self.sizeBytes = sizeBytes
    }

    /// Checks the URL scheme, the name and the checksum's form.
    public func validate() throws(SDKException) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw SDKException(.invalidInput, "'\(url.absoluteString)' is not an http or https URL")
        }
        guard !fileName.isEmpty, !fileName.contains("/"), fileName != ".", fileName != "..", !fileName.hasPrefix(".") else {
            throw SDKException(.invalidInput, "'\(fileName)' is not a usable file name",
                               recovery: "Give the file a plain name (fileName:)")
        }
        if let sha256 {
            guard sha256.count == 64, sha256.allSatisfy(\.isHexDigit) else {
                throw SDKException(.invalidInput, "'\(sha256)' is not a SHA-256 (64 hex digits)")
            }
        }
        if let sizeBytes, sizeBytes < 0 {
            throw SDKException(.invalidInput, "A file size cannot be negative (\(sizeBytes))")
        }
    }
}

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

    /// Describes an archive; `type` defaults to what the URL's suffix says.
    public init(url: URL, type: ArchiveType? = nil, primaryFile: String, expectedFiles: [String] = [],
                sha256: String? = nil, sizeBytes: Int64? = nil) throws(SDKException) {
        guard let type = type ?? ArchiveType(url: url) else {
            throw SDKException(.invalidInput, "Cannot tell the archive type of '\(url.lastPathComponent)'",
                               recovery: "Name it: one of \(ArchiveType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.url = url
        self.type = type
        self.primaryFile = primaryFile
        self.expectedFiles = expectedFiles
        self.sha256 = sha256?.lowercased()
        self.sizeBytes = sizeBytes
    }
}

/// The archive formats models ship in.
public enum ArchiveType: String, Sendable, Codable, CaseIterable {
    case zip
    case tarGz = "tar.gz"
    case tarBz2 = "tar.bz2"
    case tarXz = "tar.xz"

    /// The type a URL's or file name's suffix names (`.tgz` counts as `.tar.gz`).
    public init?(url: URL) {
        self.init(fileName: url.lastPathComponent)
    }

    /// The type a file name's suffix names.
    public init?(fileName: String) {
        let name = fileName.lowercased()
        if name.hasSuffix(".zip") { self = .zip }
        else if name.hasSuffix(".tar.gz") || name.hasSuffix(".tgz") { self = .tarGz }
        else if name.hasSuffix(".tar.bz2") || name.hasSuffix(".tbz2") { self = .tarBz2 }
        else if name.hasSuffix(".tar.xz") || name.hasSuffix(".txz") { self = .tarXz }
        else { return nil }
    }
}
