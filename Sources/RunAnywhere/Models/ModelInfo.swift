#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A model the SDK knows about: its identity, what it does, and where its files are.
///
/// A model is *downloaded* (usable) once it has a ``localPath``. Registry entries are
/// persisted in `registry.json`, and each stored model also keeps a copy of its entry in
/// `models/<framework>/<id>/model.json`, so the registry can be rebuilt from disk.
public struct ModelInfo: Sendable, Codable, Equatable, Identifiable {
    /// Unique id: lowercase letters, digits, `.`, `_` and `-`, at most 128 characters.
    public var id: String
    /// Display name.
    public var name: String
    /// What the model does.
    public var category: ModelCategory
    /// Storage format of the primary file.
    public var format: ModelFormat
    /// Engine family.
    public var framework: InferenceFramework
    /// The primary model file on disk, when the model is available locally.
    public var localPath: URL?
    /// Size of the model's files in bytes, when known.
    public var sizeBytes: Int64?
    /// Context length the model was trained for, when known (LLMs).
    public var contextLength: Int?
    /// Where the model can be downloaded from.
    public var downloadURL: URL?
    /// Expected SHA-256 of the primary file, lowercase hex.
    public var sha256: String?
    /// What to download and how it is laid out, for models registered by URL.
    public var artifact: ModelArtifact?
    /// Whether the model carries its own chat template (LLMs).
    public var hasChatTemplate: Bool?
    /// When the entry was registered.
    public var registeredAt: Date
    /// When a capability last loaded the model.
    public var lastUsedAt: Date?
    /// When the model's files were last downloaded.
    public var downloadedAt: Date?
    /// For a LoRA adapter, the ids of the models it was trained for; `nil` leaves the choice
    /// to the adapter's architecture and tensor shapes (``LoRA/checkCompatibility(_:model:)``).
    public var baseModelIds: [String]?
    /// For a vision-language model, its vision projector's file (llama.cpp's `mmproj`): a
    /// path relative to the model's folder, beside the primary file. For a model registered
    /// by URL, one of the artifact's files (``ModelArtifact/files(_:primaryFile:)``).
    public var visionProjectorFile: String?
    /// The OpenAI-compatible server that also (or only) runs the model; ``RoutingPolicy``
    /// decides which side runs each request.
    public var remote: RemoteEndpoint?

    /// Creates a model entry.
    public init(
        id: String,
        name: String,
        category: ModelCategory,
        format: ModelFormat,
        framework: InferenceFramework,
        localPath: URL? = nil,
        sizeBytes: Int64? = nil,
        contextLength: Int? = nil,
        downloadURL: URL? = nil,
        sha256: String? = nil,
        artifact: ModelArtifact? = nil,
        hasChatTemplate: Bool? = nil,
        registeredAt: Date = Date(),
        lastUsedAt: Date? = nil,
        downloadedAt: Date? = nil,
        baseModelIds: [String]? = nil,
        visionProjectorFile: String? = nil,
        remote: RemoteEndpoint? = nil
    ) {
        self.id = id
        self.name = name
        self.category = category
        self.format = format
        self.framework = framework
        self.localPath = localPath
        self.sizeBytes = sizeBytes
        self.contextLength = contextLength
        self.downloadURL = downloadURL
        self.sha256 = sha256
        self.artifact = artifact
        self.hasChatTemplate = hasChatTemplate
        self.registeredAt = registeredAt
        self.lastUsedAt = lastUsedAt
        self.downloadedAt = downloadedAt
        self.baseModelIds = baseModelIds
        self.visionProjectorFile = visionProjectorFile
        self.remote = remote
    }

    /// Whether the model's files are on this machine.
    public var isDownloaded: Bool { localPath != nil }

    /// Whether the model can be fetched with `RunAnywhere.downloadModel(_:)`.
    public var isDownloadable: Bool { artifact != nil }

    /// Checks an id against the rules of ``id``; it must also start with a letter or digit.
    ///
    /// - Throws: `.invalidModelId`.
    public static func validate(id: String) throws(SDKException) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789._-")
        guard !id.isEmpty, id.count <= 128, id.allSatisfy(allowed.contains), id.first != ".", id.first != "-" else {
            throw SDKException(
                .invalidModelId,
                "Invalid model id '\(id)'",
                recovery: "Use 1–128 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"
            )
        }
    }
}

extension ModelInfo {
    /// The primary file a backend opens when it loads the model: the load preamble every
    /// backend shares.
    ///
    /// - Throws: `.modelFileNotFound` when the model has no local file or the file is gone.
    package func localFile() throws(SDKException) -> URL {
        guard let path = localPath else {
            throw SDKException(.modelFileNotFound, "Model '\(id)' has no local file")
        }
        guard FileSystem.isReadableFile(path) else {
            throw SDKException(.modelFileNotFound, "The file of model '\(id)' is missing: \(path.path)")
        }
        return path
    }

    /// The vision projector a backend opens with a vision-language model.
    ///
    /// - Throws: `.invalidModelFormat` when the model names none, `.modelFileNotFound` when
    ///   the file is missing.
    package func localVisionProjectorFile() throws(SDKException) -> URL {
        let primary = try localFile()
        guard let name = visionProjectorFile else {
            throw SDKException(
                .invalidModelFormat,
                "Model '\(id)' has no vision projector",
                recovery: "Import it with its mmproj file: `runanywhere models import MODEL.gguf --category vlm "
                    + "--projector MMPROJ.gguf`, or importModel(from:…, visionProjector:)"
            )
        }
        let url = primary.deletingLastPathComponent().appendingPathComponent(name)
        guard FileSystem.isReadableFile(url) else {
            throw SDKException(.modelFileNotFound, "The vision projector of model '\(id)' is missing: \(url.path)")
        }
        return url
    }

    /// Checks ``visionProjectorFile``: a path inside the model's folder, among the artifact's files.
    func validateVisionProjector() throws(SDKException) {
        guard let name = visionProjectorFile else { return }
        try ModelArtifact.validateRelativePath(name, what: "vision projector file")
        if case .files(let files, let primary) = artifact {
            guard files.contains(where: { $0.fileName == name }), name != primary else {
                throw SDKException(
                    .invalidInput,
                    "The vision projector '\(name)' must be one of the model's files other than its primary file"
                )
            }
        }
    }
}

extension ModelInfo {
    /// Whether the model's files are on disk now: ``localPath`` is set and exists (unlike
    /// ``isDownloaded``, which trusts the registry).
    public var isDownloadedOnDisk: Bool {
        guard let localPath else { return false }
        return FileManager.default.fileExists(atPath: localPath.path)
    }

    /// Sets ``artifact`` (the original SDK's setter).
    public mutating func setArtifact(_ artifact: ModelArtifact?) { self.artifact = artifact }

    /// Sets ``localPath`` (the original SDK's setter).
    public mutating func setLocalPath(_ path: URL?) { localPath = path }

    /// What downloading `url` gives: an archive when its suffix names one (its primary file
    /// the archive's name without that suffix), otherwise the file itself. `format` is the
    /// original SDK's parameter; the URL alone decides here.
    public static func inferredArtifact(from url: URL, format: ModelFormat? = nil) -> ModelArtifact {
        guard let type = ArchiveType(url: url) else { return .file(RemoteFile(url: url)) }
        let name = type.stem(of: url.lastPathComponent)
        guard let archive = try? ModelArchive(url: url, type: type, primaryFile: name) else {
            return .file(RemoteFile(url: url))
        }
        return .archive(archive)
    }
}
