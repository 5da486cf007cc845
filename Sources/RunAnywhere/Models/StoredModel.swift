#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One model with files on this machine.
public struct StoredModel: Sendable, Equatable, Identifiable {
    /// The model's id.
    public var id: String
    /// Its display name.
    public var name: String
    /// What it does.
    public var category: ModelCategory
    /// Its engine family.
    public var framework: InferenceFramework
    /// Its primary file.
    public var path: URL
    /// Bytes on disk: the model's folder in the store, or its file when registered in place.
    public var sizeBytes: Int64
    /// When it was downloaded, for models fetched by URL.
    public var downloadedAt: Date?
    /// When a capability last loaded it.
    public var lastUsedAt: Date?

    /// Creates a report.
    public init(
        id: String,
        name: String,
        category: ModelCategory,
        framework: InferenceFramework,
        path: URL,
        sizeBytes: Int64,
        downloadedAt: Date?,
        lastUsedAt: Date?
    ) {
        self.id = id
        self.name = name
        self.category = category
        self.framework = framework
        self.path = path
        self.sizeBytes = sizeBytes
        self.downloadedAt = downloadedAt
        self.lastUsedAt = lastUsedAt
    }
}

extension StoredModel {
    /// The original SDK's name for ``sizeBytes``.
    public var size: Int64 { sizeBytes }
    /// The original SDK's name for ``downloadedAt``.
    public var createdDate: Date? { downloadedAt }
}
