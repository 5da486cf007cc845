#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A graphics processor the device has.
///
/// Found through the NVIDIA driver's `/proc/driver/nvidia` (and `nvidia-smi`, when it is on the
/// `PATH`, for the memory) and the kernel's DRM devices on Linux, or Metal on Apple platforms.
/// Engines use a GPU only when they were built for one (see ``Hardware/getAccelerators()``); the
/// bootstrap's builds run on the CPU.
public struct GPUInfo: Sendable, Codable, Equatable {
    /// `nvidia`, `amd`, `intel`, `apple`, or the PCI vendor id in hex when it is none of those.
    public var vendor: String
    /// The model's name when the driver gives it, e.g. `NVIDIA GeForce RTX 4090`.
    public var name: String
    /// The GPU's own memory, when known.
    public var memoryBytes: Int64?
    /// The driver's version, when known.
    public var driverVersion: String?

    /// Creates a description.
    public init(vendor: String, name: String, memoryBytes: Int64? = nil, driverVersion: String? = nil) {
        self.vendor = vendor
        self.name = name
        self.memoryBytes = memoryBytes
        self.driverVersion = driverVersion
    }
}

extension GPUInfo {
    /// The NVIDIA GPUs in the driver's `information` files (one per GPU), with the driver
    /// version from `/proc/driver/nvidia/version` and the memory `nvidia-smi` reported (its
    /// `--query-gpu=name,memory.total --format=csv,noheader,nounits` lines, in the same order).
    static func nvidia(informationFiles: [String], version: String?, smi: String?) -> [GPUInfo] {
        let driver = version.flatMap { text -> String? in
            // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 …"
            let words = text.split(whereSeparator: \.isWhitespace)
            guard let module = words.firstIndex(of: "Module"), module + 1 < words.count else { return nil }
            return String(words[module + 1])
        }
        let memories: [Int64?] = (smi ?? "").split(separator: "\n").map { line in
            let fields = line.split(separator: ",").map { $0.trimmedSpaces() }
            return fields.count >= 2 ? Int64(fields[1]).map { $0 * 1_048_576 } : nil
        }
        return informationFiles.enumerated().map { index, text in
            let model = HardwareProfile.field("Model", in: text, separator: ":") ?? "NVIDIA GPU"
            return GPUInfo(
                vendor: "nvidia",
                name: model,
                memoryBytes: index < memories.count ? memories[index] : nil,
                driverVersion: driver
            )
        }
    }

    /// A display-class PCI device's vendor, from its DRM `device/vendor` file (`0x10de`).
    static func vendorName(pciVendor: String) -> String {
        switch pciVendor.trimmed().lowercased() {
        case "0x10de": "nvidia"
        case "0x1002": "amd"
        case "0x8086": "intel"
        case let other: other
        }
    }
}
