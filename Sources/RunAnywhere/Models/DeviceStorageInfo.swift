#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

extension DeviceStorageInfo {
    /// The used share of the disk in percent (the original SDK's name; ``usedFraction`` × 100).
    public var usagePercentage: Double { usedFraction * 100 }
}

extension DeviceStorageInfo {
    /// The original SDK's initializer; ``usedBytes`` is always total minus free here, so
    /// `usedBytes` is not stored.
    public init(totalBytes: Int64, freeBytes: Int64, usedBytes: Int64) {
        self.init(totalBytes: totalBytes, freeBytes: freeBytes)
    }
}
