#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
            [
                RemoteFile(
                    url: archive.url,
                    fileName: "archive.\(archive.type.rawValue)",
                    sha256: archive.sha256,
                    sizeBytes: archive.sizeBytes
                )
            ]
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

    /// Checks URLs (`canDownload`: by default http and https), file names and checksums.
    public func validate(canDownload: (URL) -> Bool = HTTPDownloadStrategy().canHandle) throws(SDKException) {
        for file in remoteFiles { try file.validate(canDownload: canDownload) }
        switch self {
        case .file:
            break
        case .archive(let archive):
            // An archive with a structure may leave its primary file to be found once unpacked.
            let found = archive.primaryFile.isEmpty && archive.structure != nil
            for path in (found ? [] : [archive.primaryFile]) + archive.expectedFiles {
                try Self.validateRelativePath(path, what: "archive entry")
            }
        case .files(let files, let primary):
            guard !files.isEmpty else {
                throw SDKException(.invalidInput, "A multi-file model needs at least one file")
            }
            let names = files.map(\.fileName)
            guard Set(names).count == names.count else {
                throw SDKException(
                    .invalidInput,
                    "The files of a multi-file model need distinct names (got \(names.joined(separator: ", ")))"
                )
            }
            guard names.contains(primary) else {
                throw SDKException(
                    .invalidInput,
                    "The primary file '\(primary)' is not among the files \(names.joined(separator: ", "))"
                )
            }
        }
    }

    /// A path inside a model's folder: relative, no `..`, no empty parts.
    static func validateRelativePath(_ path: String, what: String) throws(SDKException) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !path.isEmpty, !path.hasPrefix("/"), !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
        else {
            throw SDKException(.invalidInput, "The \(what) '\(path)' must be a relative path inside the model's folder")
        }
    }
}
