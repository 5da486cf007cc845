#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One file to download.
public struct RemoteFile: Sendable, Codable, Equatable {
    /// Where to fetch it: `http` or `https`, or a scheme a registered ``DownloadStrategy`` handles.
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

    /// Checks the URL, the name and the checksum's form. The URL must be one `canDownload`
    /// accepts: by default an `http` or `https` URL; the SDK passes its download strategies.
    public func validate(canDownload: (URL) -> Bool = HTTPDownloadStrategy().canHandle) throws(SDKException) {
        guard canDownload(url) else { throw DownloadStrategies.unhandled(url) }
        guard !fileName.isEmpty, !fileName.contains("/"), fileName != ".", fileName != "..", !fileName.hasPrefix(".")
        else {
            throw SDKException(
                .invalidInput,
                "'\(fileName)' is not a usable file name",
                recovery: "Give the file a plain name (fileName:)"
            )
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

/// The original SDK's name for one file of a model: ``RemoteFile``.
public typealias ModelFileDescriptor = RemoteFile

extension RemoteFile {
    /// The original SDK's initializer. Every file a model lists is fetched, so `isRequired`
    /// changes nothing here.
    public init(url: URL, filename: String, isRequired: Bool = true) {
        self.init(url: url, fileName: filename)
    }
}
