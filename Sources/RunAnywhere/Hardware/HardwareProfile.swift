#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the device has: processor, memory, disk and GPUs.
///
/// Read fresh each time (free memory and disk change). On Linux it comes from `/proc`, the
/// memory cgroup and `/sys`, so that inside a container the memory is the container's limit,
/// not the host's.
///
/// ```swift
/// let hardware = RunAnywhere.hardwareProfile
/// print(hardware.cpu, hardware.cores, hardware.simdFeatures)
/// print(hardware.memoryAvailableBytes / 1_048_576, "MiB free")
/// for model in try RunAnywhere.recommendedModels(category: .llm) { print(model.id) }
/// ```
public struct HardwareProfile: Sendable, Codable, Equatable {
    /// The processor's model name, e.g. `AMD EPYC 7763 64-Core Processor`.
    public var cpu: String
    /// The instruction set: `x86_64` or `arm64`.
    public var architecture: String
    /// Logical processors this process may use.
    public var cores: Int
    /// Physical cores, when the system says.
    public var physicalCores: Int?
    /// The vector instruction sets the engines can use, in lower case: `sse4_2`, `avx`, `avx2`,
    /// `fma`, `f16c`, `avx512f`, `avx512_vnni`, `amx_tile` on x86; `neon`, `dotprod`, `i8mm`,
    /// `sve`, `fp16` on ARM.
    public var simdFeatures: [String]
    /// Memory the SDK may use in all: the machine's, or a smaller container limit.
    public var memoryTotalBytes: Int64
    /// Memory available now without swapping, within the container limit.
    public var memoryAvailableBytes: Int64
    /// Whether a container (cgroup) limit is below the machine's memory.
    public var memoryLimitedByContainer: Bool
    /// Free space on the volume of the SDK's home (or the current folder), for an unprivileged process.
    public var diskFreeBytes: Int64
    /// The GPUs found; empty when there are none.
    public var gpus: [GPUInfo]
    /// The operating system, e.g. `Debian GNU/Linux 12 (bookworm)`.
    public var os: String
    /// The kernel's release (Linux) or the OS version (Apple platforms).
    public var osVersion: String

    /// The first GPU, if any.
    public var gpu: GPUInfo? { gpus.first }

    /// Whether the processor has `feature` (see ``simdFeatures``).
    public func supports(_ feature: String) -> Bool { simdFeatures.contains(feature.lowercased()) }

    /// Creates a profile.
    public init(
        cpu: String,
        architecture: String,
        cores: Int,
        physicalCores: Int?,
        simdFeatures: [String],
        memoryTotalBytes: Int64,
        memoryAvailableBytes: Int64,
        memoryLimitedByContainer: Bool,
        diskFreeBytes: Int64,
        gpus: [GPUInfo],
        os: String,
        osVersion: String
    ) {
        self.cpu = cpu
        self.architecture = architecture
        self.cores = cores
        self.physicalCores = physicalCores
        self.simdFeatures = simdFeatures
        self.memoryTotalBytes = memoryTotalBytes
        self.memoryAvailableBytes = memoryAvailableBytes
        self.memoryLimitedByContainer = memoryLimitedByContainer
        self.diskFreeBytes = diskFreeBytes
        self.gpus = gpus
        self.os = os
        self.osVersion = osVersion
    }

    enum CodingKeys: String, CodingKey {
        case cpu, architecture, cores, physicalCores, simdFeatures, memoryTotalBytes, memoryAvailableBytes
        case memoryLimitedByContainer, diskFreeBytes, gpus, gpu, os, osVersion
    }

    /// Encodes every property, and `gpu` (the first GPU, or null) for readers that want one.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(cpu, forKey: .cpu)
        try container.encode(architecture, forKey: .architecture)
        try container.encode(cores, forKey: .cores)
        try container.encode(physicalCores, forKey: .physicalCores)
        try container.encode(simdFeatures, forKey: .simdFeatures)
        try container.encode(memoryTotalBytes, forKey: .memoryTotalBytes)
        try container.encode(memoryAvailableBytes, forKey: .memoryAvailableBytes)
        try container.encode(memoryLimitedByContainer, forKey: .memoryLimitedByContainer)
        try container.encode(diskFreeBytes, forKey: .diskFreeBytes)
        try container.encode(gpus, forKey: .gpus)
        try container.encode(gpu, forKey: .gpu)
        try container.encode(os, forKey: .os)
        try container.encode(osVersion, forKey: .osVersion)
    }

    /// Decodes what ``encode(to:)`` wrote (`gpu` is derived, so it is not read).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            cpu: try container.decode(String.self, forKey: .cpu),
            architecture: try container.decode(String.self, forKey: .architecture),
            cores: try container.decode(Int.self, forKey: .cores),
            physicalCores: try container.decodeIfPresent(Int.self, forKey: .physicalCores),
            simdFeatures: try container.decode([String].self, forKey: .simdFeatures),
            memoryTotalBytes: try container.decode(Int64.self, forKey: .memoryTotalBytes),
            memoryAvailableBytes: try container.decode(Int64.self, forKey: .memoryAvailableBytes),
            memoryLimitedByContainer: try container.decode(Bool.self, forKey: .memoryLimitedByContainer),
            diskFreeBytes: try container.decode(Int64.self, forKey: .diskFreeBytes),
            gpus: try container.decode([GPUInfo].self, forKey: .gpus),
            os: try container.decode(String.self, forKey: .os),
            osVersion: try container.decode(String.self, forKey: .osVersion)
        )
    }
}

// MARK: Fitting models

extension HardwareProfile {
    /// Memory a model needs beyond its weights (KV cache, compute buffers), as a share of
    /// its file: with the default contexts, the small models here measured 10–30 %.
    public static let workingMemoryShare = 0.25

    /// Whether `model` fits this device now: its file plus ``workingMemoryShare`` within
    /// the available memory, and, when it is not downloaded yet, its file within the free
    /// disk. A model whose size is unknown is not said to fit.
    public func fits(_ model: ModelInfo) -> Bool {
        guard let size = model.sizeBytes, size > 0 else { return false }
        let needed = Double(size) * (1 + Self.workingMemoryShare)
        guard needed <= Double(memoryAvailableBytes) else { return false }
        return model.isDownloaded || size <= diskFreeBytes
    }
}

// MARK: Detection

extension HardwareProfile {
    /// Reads the profile of this device; `diskPath` names the volume whose free space counts.
    public static func current(diskPath: URL? = nil) -> HardwareProfile {
        let disk = FileSystem.volumeSpace(
            at: diskPath ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        )
        #if os(Linux)
        var profile = linux(reading: LinuxSystem.live)
        #else
        var profile = apple()
        #endif
        profile.diskFreeBytes = disk.freeBytes
        return profile
    }

    /// Where a Linux profile reads from: a file's text and a folder's entries. Tests give fixtures.
    struct LinuxSystem: Sendable {
        /// `uname -m`, with ARM64 as `arm64`.
        var machine: String
        var read: @Sendable (String) -> String?
        var list: @Sendable (String) -> [String]

        static let live = LinuxSystem(
            machine: HardwareProfile.machine(),
            read: { try? String(contentsOfFile: $0, encoding: .utf8) },
            list: { (try? FileManager.default.contentsOfDirectory(atPath: $0))?.sorted() ?? [] }
        )

        /// A one-value file's text without the whitespace, line breaks and NULs around it
        /// (firmware strings end in a newline, device-tree ones in a NUL); `nil` when empty.
        func text(_ path: String) -> String? {
            let value = read(path)?.trimmed { character in
                // CharacterSet.whitespacesAndNewlines and .controlCharacters: Cc and Cf.
                character.isWhitespace
                    || character.unicodeScalars.allSatisfy {
                        [.control, .format].contains($0.properties.generalCategory)
                    }
            }
            return value?.isEmpty == false ? value : nil
        }
    }

    /// The profile as Linux describes it (`diskFreeBytes` is left 0 for the caller).
    static func linux(reading system: LinuxSystem, runSMI: () -> String? = runNvidiaSMI) -> HardwareProfile {
        let cpuinfo = system.read("/proc/cpuinfo") ?? ""
        let processors = cpuinfo.components(separatedBy: "\n\n").filter {
            !$0.trimmed().isEmpty
        }
        let first = processors.first ?? ""
        let architecture = system.machine
        let isARM = architecture.hasPrefix("arm")
        let flags = field("flags", in: first, separator: ":") ?? field("Features", in: first, separator: ":") ?? ""
        let cpu =
            field("model name", in: first, separator: ":")
            ?? system.text("/proc/device-tree/model")
            ?? (isARM ? armName(implementer: field("CPU implementer", in: first, separator: ":")) : nil)
            ?? architecture
        var cores = Set<String>()
        for processor in processors {
            if let package = field("physical id", in: processor, separator: ":"),
                let core = field("core id", in: processor, separator: ":")
            {
                cores.insert("\(package)/\(core)")
            }
        }

        let meminfo = system.read("/proc/meminfo") ?? ""
        let machineTotal = kilobytes("MemTotal", in: meminfo) ?? Int64(ProcessInfo.processInfo.physicalMemory)
        let machineAvailable = kilobytes("MemAvailable", in: meminfo) ?? machineTotal
        let (limit, usage) = cgroupMemory(system)
        let total = limit.map { min($0, machineTotal) } ?? machineTotal
        var available = machineAvailable
        if let limit, limit < machineTotal { available = min(available, max(0, limit - (usage ?? 0))) }

        let nvidia = system.list("/proc/driver/nvidia/gpus").compactMap {
            system.read("/proc/driver/nvidia/gpus/\($0)/information")
        }
        var gpus = GPUInfo.nvidia(
            informationFiles: nvidia,
            version: system.read("/proc/driver/nvidia/version"),
            smi: nvidia.isEmpty ? nil : runSMI()
        )
        // Other GPUs: DRM cards (not their connectors, `card0-HDMI-A-1`) of vendors not yet seen.
        for card in system.list("/sys/class/drm") where card.hasPrefix("card") && !card.contains("-") {
            guard let vendor = system.read("/sys/class/drm/\(card)/device/vendor") else { continue }
            let name = GPUInfo.vendorName(pciVendor: vendor)
            if !gpus.contains(where: { $0.vendor == name }) {
                gpus.append(GPUInfo(vendor: name, name: "\(name) GPU (\(card))"))
            }
        }

        let release = system.read("/etc/os-release") ?? ""
        let os = field("PRETTY_NAME", in: release, separator: "=").map { $0.trimmed { $0 == "\"" } } ?? "Linux"
        return HardwareProfile(
            cpu: cpu,
            architecture: architecture,
            cores: ProcessInfo.processInfo.activeProcessorCount,
            physicalCores: cores.isEmpty ? nil : cores.count,
            simdFeatures: simdFeatures(flags: flags, arm: isARM),
            memoryTotalBytes: total,
            memoryAvailableBytes: min(available, total),
            memoryLimitedByContainer: total < machineTotal,
            diskFreeBytes: 0,
            gpus: gpus,
            os: os,
            osVersion: (system.read("/proc/sys/kernel/osrelease") ?? "").trimmed()
        )
    }

    /// The memory cgroup's limit and usage (v2 `memory.max`, else v1 `memory.limit_in_bytes`);
    /// `nil` for no limit.
    static func cgroupMemory(_ system: LinuxSystem) -> (limit: Int64?, usage: Int64?) {
        let candidates = [
            ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
            ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
        ]
        for (limitFile, usageFile) in candidates {
            guard let text = system.read(limitFile)?.trimmed() else { continue }
            let usage = system.read(usageFile).flatMap { Int64($0.trimmed()) }
            // "max" (v2) or a page-rounded Int64.max (v1) mean no limit.
            guard let limit = Int64(text), limit < 1 << 60 else { return (nil, usage) }
            return (limit, usage)
        }
        return (nil, nil)
    }

    /// The features of `flags` (x86 `flags` or ARM `Features` from `/proc/cpuinfo`) the
    /// engines use, in a fixed order.
    static func simdFeatures(flags: String, arm: Bool) -> [String] {
        let present = Set(flags.split(whereSeparator: \.isWhitespace).map { $0.lowercased() })
        if arm {
            // ARM64 always has Advanced SIMD; the kernel calls it `asimd`.
            let names = [("neon", "asimd"), ("dotprod", "asimddp"), ("i8mm", "i8mm"), ("sve", "sve"), ("fp16", "fphp")]
            return names.filter { $0.0 == "neon" || present.contains($0.1) }.map(\.0)
        }
        let names = [
            "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16", "avx_vnni",
            "amx_tile", "amx_int8", "amx_bf16",
        ]
        return names.filter(present.contains)
    }

    /// The value of `key` in `key<separator>value` lines (first match), trimmed.
    static func field(_ key: String, in text: String, separator: Character) -> String? {
        for line in text.split(separator: "\n") {
            guard let index = line.firstIndex(of: separator) else { continue }
            if line[..<index].trimmedSpaces() == key {
                let value = line[line.index(after: index)...].trimmedSpaces()
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// A `/proc/meminfo` value (`MemTotal:  16384 kB`) in bytes.
    static func kilobytes(_ key: String, in meminfo: String) -> Int64? {
        guard let value = field(key, in: meminfo, separator: ":") else { return nil }
        return Int64(value.split(separator: " ").first ?? "").map { $0 * 1024 }
    }

    /// A readable name for an ARM core's implementer code, which is all many ARM boards give.
    static func armName(implementer: String?) -> String? {
        guard let implementer else { return nil }
        let vendors = ["0x41": "ARM", "0x61": "Apple", "0x51": "Qualcomm", "0x48": "HiSilicon", "0xc0": "Ampere"]
        return "\(vendors[implementer.lowercased()] ?? "ARM (implementer \(implementer))") processor"
    }

    /// The kernel's name for the machine (`uname -m`), normalized to `arm64` for ARM64.
    static func machine() -> String {
        var name = utsname()
        uname(&name)
        let machine = withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return machine == "aarch64" ? "arm64" : machine
    }

    /// `nvidia-smi`'s name and memory lines, when it is on the `PATH` (only run when the driver
    /// reported a GPU, and given 5 s: a hung driver must not hang a memory check).
    static func runNvidiaSMI() -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("nvidia-smi") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
        guard let path else { return nil }
        let outcome = try? ChildProcess(
            executable: path.path,
            arguments: ["--query-gpu=name,memory.total", "--format=csv,noheader,nounits"],
            timeout: .seconds(5)
        ).run()
        guard let outcome, outcome.succeeded else { return nil }
        return String(decoding: outcome.output, as: UTF8.self)
    }

    #if !os(Linux)
    /// The profile as an Apple platform describes it (`diskFreeBytes` is left 0 for the caller).
    static func apple() -> HardwareProfile {
        let architecture = machine()
        let optional: [(String, String)] =
            architecture == "arm64"
            ? [
                ("dotprod", "hw.optional.arm.FEAT_DotProd"), ("i8mm", "hw.optional.arm.FEAT_I8MM"),
                ("fp16", "hw.optional.arm.FEAT_FP16"),
            ]
            : [
                ("avx", "hw.optional.avx1_0"), ("avx2", "hw.optional.avx2_0"), ("fma", "hw.optional.fma"),
                ("avx512f", "hw.optional.avx512f"),
            ]
        let features =
            (architecture == "arm64" ? ["neon"] : []) + optional.filter { sysctlInteger($0.1) ?? 0 != 0 }.map(\.0)
        let info = ProcessInfo.processInfo
        let memory = Int64(info.physicalMemory)
        #if os(macOS)
        let os = "macOS"
        #elseif os(iOS)
        let os = "iOS"
        #else
        let os = "Apple"
        #endif
        return HardwareProfile(
            cpu: sysctlText("machdep.cpu.brand_string") ?? architecture,
            architecture: architecture,
            cores: info.activeProcessorCount,
            physicalCores: sysctlInteger("hw.physicalcpu_max"),
            simdFeatures: features,
            memoryTotalBytes: memory,
            memoryAvailableBytes: memory,
            memoryLimitedByContainer: false,
            diskFreeBytes: 0,
            gpus: architecture == "arm64" ? [GPUInfo(vendor: "apple", name: "Apple GPU")] : [],
            os: os,
            osVersion: info.operatingSystemVersionString
        )
    }

    /// A text sysctl such as `hw.model`; `nil` when the system has none.
    static func sysctlText(_ name: String) -> String? {
        var size = 0
        guard sysctlbyname(name, nil, &size, nil, 0) == 0, size > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: size)
        guard sysctlbyname(name, &buffer, &size, nil, 0) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// An integer sysctl such as `hw.physicalcpu_max`; `nil` when the system has none.
    static func sysctlInteger(_ name: String) -> Int? {
        // Integer sysctls are 4 or 8 bytes; either fits a zeroed little-endian Int64.
        var value: Int64 = 0
        var size = MemoryLayout<Int64>.size
        guard sysctlbyname(name, &value, &size, nil, 0) == 0 else { return nil }
        return Int(value)
    }
    #endif
}

extension HardwareProfile {
    /// Whether the device has Apple's Neural Engine: never on the platforms this SDK probes
    /// (the original SDK's property; no engine here can use one).
    public var hasNeuralEngine: Bool { false }
}

/// What `hardware.getProfile()` returns, as the original SDK shapes it: the device's
/// ``HardwareProfile`` and the ``AcceleratorInfo`` of each processor the engines can use.
public struct HardwareProfileResult: Sendable, Equatable {
    /// The device's processors, memory and disk.
    public var profile: HardwareProfile
    /// The processor, then each GPU, with the registered engines that can run models on it.
    public var accelerators: [AcceleratorInfo]

    /// Creates a result.
    public init(profile: HardwareProfile, accelerators: [AcceleratorInfo]) {
        self.profile = profile
        self.accelerators = accelerators
    }

    /// Always true: the profile is read from this device (the original SDK's field).
    public var hasProfile: Bool { true }
}
