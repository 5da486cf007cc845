#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The SDK's own files by kind, in the original SDK's terms: its "documents" are the models,
/// its cache the download cache, its application support what else the SDK keeps (temporary
/// files).
public struct AppStorageInfo: Sendable, Equatable, Codable {
    /// Bytes of the stored models.
    public var documentsBytes: Int64
    /// Bytes of the download cache.
    public var cacheBytes: Int64
    /// Bytes of the SDK's other files.
    public var appSupportBytes: Int64
    /// All of them.
    public var totalBytes: Int64

    /// A breakdown.
    public init(documentsBytes: Int64, cacheBytes: Int64, appSupportBytes: Int64, totalBytes: Int64) {
        self.documentsBytes = documentsBytes
        self.cacheBytes = cacheBytes
        self.appSupportBytes = appSupportBytes
        self.totalBytes = totalBytes
    }
}

extension StorageInfo {
    /// The SDK's files by kind (the original SDK's `appStorage`).
    public var appStorage: AppStorageInfo {
        AppStorageInfo(
            documentsBytes: modelsBytes,
            cacheBytes: cacheBytes,
            appSupportBytes: tempBytes,
            totalBytes: totalBytes
        )
    }
}

/// One model's use of the disk, in the original SDK's terms.
public struct ModelStorageMetrics: Sendable, Equatable, Codable {
    /// The model's id.
    public var modelID: String
    /// Bytes its files take.
    public var sizeOnDiskBytes: Int64
    /// When it was last loaded, in milliseconds since 1970; `nil` when never.
    public var lastUsedMs: Int64?

    /// The metrics.
    public init(modelID: String, sizeOnDiskBytes: Int64, lastUsedMs: Int64? = nil) {
        self.modelID = modelID
        self.sizeOnDiskBytes = sizeOnDiskBytes
        self.lastUsedMs = lastUsedMs
    }

    /// The metrics of a stored model.
    public init(_ model: StoredModel) {
        self.init(
            modelID: model.id,
            sizeOnDiskBytes: model.sizeBytes,
            lastUsedMs: model.lastUsedAt.map { Int64(($0.timeIntervalSince1970 * 1_000).rounded()) }
        )
    }
}

/// Whether something fits on the disk: the original SDK's storage check result.
public struct StorageAvailability: Sendable, Equatable, Codable {
    /// Whether it fits.
    public var isAvailable: Bool
    /// The bytes it needs.
    public var requiredBytes: Int64
    /// The bytes free.
    public var availableBytes: Int64
    /// What to do when it does not fit; `nil` when it does.
    public var recommendation: String?

    /// The original SDK's factory.
    public static func make(
        isAvailable: Bool,
        requiredBytes: Int64,
        availableBytes: Int64,
        recommendation: String? = nil
    ) -> StorageAvailability {
        StorageAvailability(
            isAvailable: isAvailable,
            requiredBytes: requiredBytes,
            availableBytes: availableBytes,
            recommendation: recommendation
        )
    }
}
