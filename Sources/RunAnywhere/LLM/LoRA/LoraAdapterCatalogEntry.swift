#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A LoRA adapter the SDK knows about: where it comes from, which models it is for, and,
/// once its file is here, what the file says about it.
///
/// Adapters live in the model registry (category ``ModelCategory/loraAdapter``), so they
/// are downloaded (resumed, checksummed), stored, listed and removed like models.
public struct LoraAdapterCatalogEntry: Sendable, Codable, Equatable, Identifiable {
    /// The adapter's id in the model registry.
    public var id: String
    /// Display name.
    public var name: String
    /// The engine family that applies it (llama.cpp's `.llamaCpp` for GGUF LoRA adapters).
    public var framework: InferenceFramework
    /// The models it was trained for; empty leaves the choice to its architecture and tensor
    /// shapes.
    public var baseModelIds: [String]
    /// Where to download it from, if anywhere.
    public var downloadURL: URL?
    /// Expected SHA-256 of the file, lowercase hex.
    public var sha256: String?
    /// Size of the file in bytes, when known.
    public var sizeBytes: Int64?
    /// The file on this machine, once downloaded or imported.
    public var localPath: URL?
    /// The architecture it was made for (from the file).
    public var architecture: String?
    /// Its rank (from the file; the largest if its tensors differ).
    public var rank: Int?
    /// Its `alpha` (from the file): changes are scaled by `alpha / rank`; `nil` means 1.
    public var alpha: Float?
    /// Model tensors it changes (from the file).
    public var tensorCount: Int?

    /// Describes an adapter to register: give `downloadURL` (and ideally `sha256`) for one
    /// to download later, or `localPath` for a file already on this machine.
    public init(
        id: String,
        name: String? = nil,
        framework: InferenceFramework,
        baseModelIds: [String] = [],
        downloadURL: URL? = nil,
        sha256: String? = nil,
        sizeBytes: Int64? = nil,
        localPath: URL? = nil
    ) {
        self.id = id
        self.name = name ?? id
        self.framework = framework
        self.baseModelIds = baseModelIds
        self.downloadURL = downloadURL
        self.sha256 = sha256
        self.sizeBytes = sizeBytes
        self.localPath = localPath
    }

    /// The entry for a registered adapter, with what its file says when it is here.
    init(_ model: ModelInfo) {
        self.init(
            id: model.id,
            name: model.name,
            framework: model.framework,
            baseModelIds: model.baseModelIds ?? [],
            downloadURL: model.downloadURL,
            sha256: model.sha256,
            sizeBytes: model.sizeBytes,
            localPath: model.localPath
        )
        if let path = model.localPath, let file = try? LoRAAdapterFile(contentsOf: path) {
            architecture = file.architecture
            rank = file.rank
            alpha = file.alpha
            tensorCount = file.pairs.count
        }
    }
}

/// The issue tracker's and llama-server's name for the same thing.
public typealias LoRAAdapterInfo = LoraAdapterCatalogEntry
