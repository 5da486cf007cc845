@_spi(Backend) internal import RunAnywhere

#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// What the control plane learns about a device when it registers: the SDK, the platform and
/// the hardware, never anything about its user.
public struct DeviceDescription: Sendable, Codable, Equatable {
    /// The SDK's version.
    public var sdkVersion: String
    /// `linux`, `macos`, `ios`, …
    public var platform: String
    /// The operating system's name.
    public var os: String?
    /// The operating system's version.
    public var osVersion: String?
    /// `x86_64`, `arm64`, …
    public var architecture: String
    /// The CPU model.
    public var cpu: String?
    /// Logical cores.
    public var cores: Int
    /// Physical memory.
    public var memoryTotalBytes: Int64
    /// The first GPU's name, when there is one.
    public var gpu: String?
    /// The app's bundle or package id, when known.
    public var appId: String?

    /// Creates a description.
    public init(
        sdkVersion: String,
        platform: String,
        os: String? = nil,
        osVersion: String? = nil,
        architecture: String,
        cpu: String? = nil,
        cores: Int,
        memoryTotalBytes: Int64,
        gpu: String? = nil,
        appId: String? = nil
    ) {
        self.sdkVersion = sdkVersion
        self.platform = platform
        self.os = os
        self.osVersion = osVersion
        self.architecture = architecture
        self.cpu = cpu
        self.cores = cores
        self.memoryTotalBytes = memoryTotalBytes
        self.gpu = gpu
        self.appId = appId
    }
}
