import RunAnywhereJSON

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Resolves ``ModelReference``s against the Hugging Face hub: which file, at which URL, of
/// which size and SHA-256. The hub's model API lists a revision's files with their sizes and,
/// for the large (LFS) ones, their SHA-256; files download from its `resolve` URLs, which
/// redirect to its storage.
enum HuggingFaceHub {
    /// The most bytes the file listing may take: a repository of thousands of files is under 2 MB.
    static let maximumListingBytes: Int64 = 32 << 20

    /// Whether `url` is on the hub at `endpoint` (same scheme, host and port).
    static func isHub(_ url: URL, endpoint: URL) -> Bool {
        url.scheme?.lowercased() == endpoint.scheme?.lowercased()
            && url.host?.lowercased() == endpoint.host?.lowercased()
            && url.port == endpoint.port
    }

    /// The file `reference` names, with the size and checksum the hub reports.
    ///
    /// - Throws: `.modelNotFound` when the repository, revision or file is not there (the
    ///   message lists the repository's GGUF files); `.downloadFailed` when the hub cannot be
    ///   reached or refuses (a gated or private repository without `HF_TOKEN`); `.invalidInput`
    ///   for a split GGUF file.
    static func resolve(
        _ reference: ModelReference,
        configuration: DownloadConfiguration,
        temporaryDirectory: URL
    ) async throws(SDKException) -> RemoteFile {
        let files = try await listing(reference, configuration: configuration, temporaryDirectory: temporaryDirectory)
        let chosen = try choose(reference, among: files)
        var url = configuration.huggingFaceEndpoint
        for part in reference.repository.split(separator: "/").map(String.init) + ["resolve", reference.revision] {
            url.appendPathComponent(part)
        }
        for part in chosen.path.split(separator: "/") { url.appendPathComponent(String(part)) }
        return RemoteFile(url: url, sha256: chosen.sha256, sizeBytes: chosen.size)
    }

    /// One file of a revision, as the hub lists it.
    struct HubFile: Equatable {
        var path: String
        var size: Int64? = nil
        var sha256: String? = nil
    }

    /// The files of the reference's revision.
    private static func listing(
        _ reference: ModelReference,
        configuration: DownloadConfiguration,
        temporaryDirectory: URL
    ) async throws(SDKException) -> [HubFile] {
        var url = configuration.huggingFaceEndpoint.appendingPathComponent("api").appendingPathComponent("models")
        for part in reference.repository.split(separator: "/").map(String.init) + ["revision", reference.revision] {
            url.appendPathComponent(part)
        }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw SDKException(.invalidInput, "Cannot make the hub's URL for \(reference)")
        }
        components.queryItems = [URLQueryItem(name: "blobs", value: "true")]
        guard let listingURL = components.url else {
            throw SDKException(.invalidInput, "Cannot make the hub's URL for \(reference)")
        }
        do {
            try FileManager.default.createDirectory(at: temporaryDirectory, withIntermediateDirectories: true)
        } catch {
            throw SDKException(.fileSystemError, "Cannot create \(temporaryDirectory.path): \(error)")
        }
        let destination = temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: destination) }
        let size: Int64
        do {
            size = try await HTTPDownloadStrategy().fetch(
                DownloadRequest(url: listingURL, destination: destination, configuration: configuration),
                statusError: { status in listingError(status, reference: reference, configuration: configuration) }
            )
        } catch {
            throw SDKException.wrap(error, as: .downloadFailed, "Listing \(reference.repository) on the hub failed")
        }
        guard size <= maximumListingBytes,
            let data = try? FileSystem.contents(of: destination, limit: Int(maximumListingBytes)),
            let value = try? JSONValue(parsingUntrusted: String(decoding: data, as: UTF8.self)),
            let siblings = value["siblings"]?.arrayValue
        else {
            throw SDKException(.downloadFailed, "The hub's listing of \(reference.repository) is not one it writes")
        }
        return siblings.compactMap { sibling in
            guard let path = sibling["rfilename"]?.stringValue, !path.isEmpty else { return nil }
            let lfs = sibling["lfs"]
            let sha = lfs?["sha256"]?.stringValue ?? lfs?["oid"]?.stringValue
            return HubFile(
                path: path,
                size: lfs?["size"]?.integerValue ?? sibling["size"]?.integerValue,
                sha256: sha.flatMap { $0.count == 64 && $0.allSatisfy(\.isHexDigit) ? $0.lowercased() : nil }
            )
        }
    }

    /// What a final HTTP status of the listing means: no such repository (404), or one the
    /// token may not read (401, 403); `nil` for the others, which stay download failures.
    private static func listingError(
        _ status: Int,
        reference: ModelReference,
        configuration: DownloadConfiguration
    ) -> SDKException? {
        switch status {
        case 404:
            return SDKException(
                .modelNotFound,
                "The hub has no repository \(reference.repository) at revision \(reference.revision)",
                recovery: "Check the reference's organisation, repository and revision"
            )
        case 401, 403:
            return SDKException(
                .downloadFailed,
                "The hub refused to list \(reference.repository) (HTTP \(status))",
                recovery: configuration.huggingFaceToken == nil
                    ? "The repository may be gated or private: set HF_TOKEN to a token that may read it"
                    : "Check that HF_TOKEN may read this repository (gated ones need their terms accepted)"
            )
        default:
            return nil
        }
    }

    /// The file the reference names: its path, or the GGUF file of its quantization.
    static func choose(_ reference: ModelReference, among files: [HubFile]) throws(SDKException) -> HubFile {
        let ggufs = files.filter { $0.path.lowercased().hasSuffix(".gguf") }
        let available = ggufs.map(\.path).sorted().prefix(20).joined(separator: ", ")
        if let file = reference.file {
            guard let found = files.first(where: { $0.path == file }) else {
                throw SDKException(
                    .modelNotFound,
                    "\(reference.repository) has no file \(file) at \(reference.revision)",
                    recovery: ggufs.isEmpty ? nil : "Its GGUF files: \(available)"
                )
            }
            return found
        }
        // The model itself, not a vision projector beside it.
        let models = ggufs.filter { !($0.path.split(separator: "/").last ?? "").lowercased().hasPrefix("mmproj") }
        let quantization = (reference.quantization ?? ModelReference.defaultQuantization).lowercased()
        let matching = models.filter { file in
            let name = (file.path.split(separator: "/").last.map(String.init) ?? file.path).lowercased()
            let stem = name.dropLast(".gguf".count)
            return stem.hasSuffix(quantization) || stem.contains(quantization + "-")
                || stem.contains(quantization + ".")
        }
        let picked: [HubFile] =
            if !matching.isEmpty { matching } else if reference.quantization == nil && models.count == 1 { models } else
            { [] }
        guard let first = picked.min(by: { $0.path.count < $1.path.count }) else {
            throw SDKException(
                .modelNotFound,
                "\(reference.repository) has no GGUF file of quantization \(quantization.uppercased())",
                recovery: models.isEmpty ? "It has no GGUF files" : "Its GGUF files: \(available)"
            )
        }
        if first.path.lowercased().contains(/-\d{5}-of-\d{5}\.gguf$/) {
            throw SDKException(
                .invalidInput,
                "\(first.path) is one part of a split GGUF model, which is not supported",
                recovery: "Pick a quantization that comes as one file"
            )
        }
        return first
    }
}
