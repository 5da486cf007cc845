import Foundation

/// What the SDK stores and how much room is left. From `RunAnywhere.getStorageInfo()`.
public struct StorageInfo: Sendable, Equatable {
    /// The volume holding the SDK's home.
    public var device: DeviceStorageInfo
    /// The SDK's home folder.
    public var home: URL
    /// Bytes of all downloaded or imported models in the store.
    public var modelsBytes: Int64
    /// Bytes in `cache/`.
    public var cacheBytes: Int64
    /// Bytes in `tmp/`, partial downloads included.
    public var tempBytes: Int64
    /// Every model with files on this machine, largest first.
    public var models: [StoredModel]

    /// Creates a report.
    public init(device: DeviceStorageInfo, home: URL, modelsBytes: Int64, cacheBytes: Int64, tempBytes: Int64,
                models: [StoredModel]) {
        self.device = device
        self.home = home
        self.modelsBytes = modelsBytes
        self.cacheBytes = cacheBytes
        self.tempBytes = tempBytes
        self.models = models
    }

    /// Bytes the SDK uses in all.
    public var totalBytes: Int64 { modelsBytes + cacheBytes + tempBytes }
}

/// Size and free space of a volume.
public struct DeviceStorageInfo: Sendable, Equatable {
    /// The volume's size.
    public var totalBytes: Int64
    /// Bytes an unprivileged process may still write.
    public var freeBytes: Int64

    /// Creates a report.
    public init(totalBytes: Int64, freeBytes: Int64) {
        self.totalBytes = totalBytes
        self.freeBytes = freeBytes
    }

    /// Bytes in use.
    public var usedBytes: Int64 { totalBytes - freeBytes }
    /// Share in use, 0…1.
    public var usedFraction: Double { totalBytes > 0 ? Double(usedBytes) / Double(totalBytes) : 0 }
}

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
    public init(id: String, name: String, category: ModelCategory, framework: InferenceFramework, path: URL,
                sizeBytes: Int64, downloadedAt: Date?, lastUsedAt: Date?) {
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
