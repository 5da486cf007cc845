#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the SDK stores and how much room is left. From `RunAnywhere.storageInfo()`.
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
    public init(
        device: DeviceStorageInfo,
        home: URL,
        modelsBytes: Int64,
        cacheBytes: Int64,
        tempBytes: Int64,
        models: [StoredModel]
    ) {
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

extension StorageInfo {
    /// The original SDK's name for ``modelsBytes``.
    public var totalModelsSizeBytes: Int64 { modelsBytes }
    /// The original SDK's name for ``modelsBytes``.
    public var totalModelsSize: Int64 { modelsBytes }
    /// The original SDK's name for ``device``.
    public var deviceStorage: DeviceStorageInfo { device }
    /// The original SDK's name for ``models``.
    public var storedModels: [StoredModel] { models }
    /// The number of models with files on disk.
    public var modelCount: Int { models.count }

    /// A report of nothing: no device figures, no models (the original SDK's placeholder).
    public static let empty = StorageInfo(
        device: DeviceStorageInfo(totalBytes: 0, freeBytes: 0),
        home: URL(fileURLWithPath: "/"),
        modelsBytes: 0,
        cacheBytes: 0,
        tempBytes: 0,
        models: []
    )
}
