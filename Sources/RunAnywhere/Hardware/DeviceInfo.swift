#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#endif

/// The device as the original SDK describes it (its `DeviceInfo`, with its fields and JSON
/// keys): a view of ``HardwareProfile`` plus what the host says about itself (model, name,
/// form factor, battery). ``LogEntry/deviceInfo`` carries one.
///
/// On Linux the model is the firmware's product name (`/sys/class/dmi/id/product_name`, or the
/// device tree's model on ARM boards), the form factor comes from the firmware's chassis type,
/// the battery from `/sys/class/power_supply`, low-power mode from the ACPI platform profile,
/// and efficiency cores from a hybrid Intel processor's `cpu_atom` list. No Neural Engine is
/// ever reported, and no identifier: ``deviceFingerprint`` is `nil` (``RunAnywhere/deviceId``
/// is the app's to send where it chooses). ``deviceName`` is the host's name, which often
/// names its owner: it stays in the entries an app's own destinations receive, and the SDK
/// sends no part of a ``DeviceInfo`` anywhere.
public struct DeviceInfo: Codable, Sendable, Equatable {
    /// The device's model, e.g. `ThinkPad X1 Carbon Gen 11` or `Raspberry Pi 5 Model B Rev 1.0`;
    /// `Unknown` when the firmware does not say.
    public let deviceModel: String
    /// The host's name, as the kernel has it.
    public let deviceName: String
    /// `linux`, `macos` or `ios` (the original's names; tvOS, watchOS and visionOS are `ios`).
    public let platform: String
    /// The operating system's version: the kernel's release on Linux.
    public let osVersion: String
    /// `laptop`, `desktop`, `server`, `tablet`, `phone`, `tv`, `watch`, `headset` or `unknown`.
    public let formFactor: String
    /// The instruction set: `x86_64` or `arm64`.
    public let architecture: String
    /// The processor's name (``HardwareProfile/cpu``).
    public let chipName: String
    /// Memory the SDK may use in all, in bytes (a container's limit when smaller).
    public let totalMemory: Int
    /// Memory available when detected, in bytes (on Apple platforms, the total: the system
    /// does not say).
    public let availableMemory: Int
    /// Whether the device has Apple's Neural Engine: never here (no engine can use one).
    public let hasNeuralEngine: Bool
    /// The Neural Engine's cores: 0.
    public let neuralEngineCores: Int
    /// The first GPU's vendor (`nvidia`, `amd`, `intel`, `apple`, or its PCI vendor id, e.g.
    /// `0x1a03`), or `none`.
    public let gpuFamily: String
    /// The battery's charge from 0 to 1; `nil` without a battery.
    public let batteryLevel: Double?
    /// `charging`, `full` or `unplugged`; `nil` without a battery or when it does not say.
    public let batteryState: String?
    /// Whether the system runs in low-power mode.
    public let isLowPowerMode: Bool
    /// Logical processors this process may use.
    public let coreCount: Int
    /// Performance cores among ``coreCount``: all of them unless the processor has two kinds
    /// (a hybrid Intel processor on Linux, Apple silicon).
    public let performanceCores: Int
    /// Efficiency cores among ``coreCount``; 0 for a processor of one kind (and for ARM
    /// big.LITTLE boards, whose kernels do not list them apart).
    public let efficiencyCores: Int
    /// Always `nil` here: no device identifier rides along with log lines.
    public let deviceFingerprint: String?

    /// A description with every field given.
    public init(
        deviceModel: String,
        deviceName: String,
        platform: String,
        osVersion: String,
        formFactor: String,
        architecture: String,
        chipName: String,
        totalMemory: Int,
        availableMemory: Int,
        hasNeuralEngine: Bool = false,
        neuralEngineCores: Int = 0,
        gpuFamily: String,
        batteryLevel: Double? = nil,
        batteryState: String? = nil,
        isLowPowerMode: Bool = false,
        coreCount: Int,
        performanceCores: Int,
        efficiencyCores: Int = 0,
        deviceFingerprint: String? = nil
    ) {
        self.deviceModel = deviceModel
        self.deviceName = deviceName
        self.platform = platform
        self.osVersion = osVersion
        self.formFactor = formFactor
        self.architecture = architecture
        self.chipName = chipName
        self.totalMemory = totalMemory
        self.availableMemory = availableMemory
        self.hasNeuralEngine = hasNeuralEngine
        self.neuralEngineCores = neuralEngineCores
        self.gpuFamily = gpuFamily
        self.batteryLevel = batteryLevel
        self.batteryState = batteryState
        self.isLowPowerMode = isLowPowerMode
        self.coreCount = coreCount
        self.performanceCores = performanceCores
        self.efficiencyCores = efficiencyCores
        self.deviceFingerprint = deviceFingerprint
    }

    // The original's snake_case keys, as its backend's schema has them.
    enum CodingKeys: String, CodingKey {
        case deviceModel = "device_model"
        case deviceName = "device_name"
        case platform
        case osVersion = "os_version"
        case formFactor = "form_factor"
        case architecture
        case chipName = "chip_name"
        case totalMemory = "total_memory"
        case availableMemory = "available_memory"
        case hasNeuralEngine = "has_neural_engine"
        case neuralEngineCores = "neural_engine_cores"
        case gpuFamily = "gpu_family"
        case batteryLevel = "battery_level"
        case batteryState = "battery_state"
        case isLowPowerMode = "is_low_power_mode"
        case coreCount = "core_count"
        case performanceCores = "performance_cores"
        case efficiencyCores = "efficiency_cores"
        case deviceFingerprint = "device_fingerprint"
    }

    /// The version number alone, e.g. `6.8.0` from `6.8.0-45-generic` or `17.2` from
    /// `Version 17.2 (Build 21C52)`.
    public var cleanOSVersion: String {
        guard let start = osVersion.firstIndex(where: Self.isDigit) else { return osVersion }
        var parts: [Substring] = []
        var rest = osVersion[start...]
        while parts.count < 3 {
            let digits = rest.prefix(while: Self.isDigit)
            guard !digits.isEmpty else { break }
            parts.append(digits)
            rest = rest.dropFirst(digits.count)
            guard rest.first == ".", rest.dropFirst().first.map(Self.isDigit) == true else { break }
            rest = rest.dropFirst()
        }
        return parts.count >= 2 ? parts.joined(separator: ".") : osVersion
    }

    /// Whether `character` is a digit 0–9 (`isNumber` also takes `²` and `٣`).
    private static func isDigit(_ character: Character) -> Bool {
        character.isASCII && character.isWholeNumber
    }

    /// The original's device type of the form factor: `mobile`, `tablet`, `desktop`, `tv`,
    /// `watch` or `vr` (a server counts as a desktop, and so does a Linux device of unknown
    /// form: a virtual machine or a board).
    public var deviceType: String {
        switch formFactor {
        case "tablet": "tablet"
        case "laptop", "desktop", "server": "desktop"
        case "unknown" where platform == "linux": "desktop"
        case "tv": "tv"
        case "watch": "watch"
        case "headset": "vr"
        default: "mobile"
        }
    }

    /// The original's other name for ``deviceModel``.
    public var modelName: String { deviceModel }

    /// The original's other name for ``deviceFingerprint``: empty here.
    public var deviceId: String { deviceFingerprint ?? "" }

    /// This device now.
    public static var current: DeviceInfo {
        let profile = HardwareProfile.current()
        #if os(Linux)
        return linux(profile, reading: HardwareProfile.LinuxSystem.live)
        #else
        return apple(profile)
        #endif
    }
}

// MARK: Detection

extension DeviceInfo {
    /// The description of a Linux device whose hardware is `profile`, from the files `system` reads.
    static func linux(_ profile: HardwareProfile, reading system: HardwareProfile.LinuxSystem) -> DeviceInfo {
        let supplies = "/sys/class/power_supply"
        // The system's own battery: a mouse's or a headset's has the scope `Device`.
        let battery = system.list(supplies).first { supply in
            system.text("\(supplies)/\(supply)/type") == "Battery"
                && system.text("\(supplies)/\(supply)/scope") != "Device"
                && system.text("\(supplies)/\(supply)/present") != "0"
        }
        let capacity = battery.flatMap { system.text("\(supplies)/\($0)/capacity") }.flatMap { Int($0) }
        let batteryState: String? =
            switch battery.flatMap({ system.text("\(supplies)/\($0)/status") }) {
            case "Charging": "charging"
            case "Full": "full"
            case "Discharging": "unplugged"
            // `Not charging` is plugged in but held (a charge limit): none of the three.
            default: nil
            }
        // A hybrid Intel processor lists its two kinds of cores apart, for the whole machine;
        // this process may use fewer.
        let cores = profile.cores
        let performance = system.text("/sys/devices/cpu_core/cpus").map { min(cpuCount($0), cores) }
        let efficiency = system.text("/sys/devices/cpu_atom/cpus").map {
            min(cpuCount($0), cores - (performance ?? 0))
        }
        return DeviceInfo(
            deviceModel: system.text("/sys/class/dmi/id/product_name") ?? system.text("/proc/device-tree/model")
                ?? "Unknown",
            deviceName: system.text("/proc/sys/kernel/hostname") ?? "localhost",
            platform: "linux",
            osVersion: profile.osVersion,
            formFactor: formFactor(chassisType: system.text("/sys/class/dmi/id/chassis_type")),
            architecture: profile.architecture,
            chipName: profile.cpu,
            totalMemory: Int(profile.memoryTotalBytes),
            availableMemory: Int(profile.memoryAvailableBytes),
            gpuFamily: profile.gpu?.vendor ?? "none",
            batteryLevel: capacity.flatMap { (0...100).contains($0) ? Double($0) / 100 : nil },
            batteryState: batteryState,
            isLowPowerMode: system.text("/sys/firmware/acpi/platform_profile") == "low-power",
            coreCount: cores,
            performanceCores: performance ?? cores,
            efficiencyCores: efficiency ?? 0
        )
    }

    /// The form factor of an SMBIOS chassis type (DMTF DSP0134, table 17).
    static func formFactor(chassisType: String?) -> String {
        switch chassisType.flatMap({ Int($0) }) {
        case 3, 4, 5, 6, 7, 13, 15, 16, 24, 35, 36: "desktop"
        case 8, 9, 10, 14, 31, 32: "laptop"
        case 11: "phone"
        case 30: "tablet"
        case 17, 23, 25, 28, 29: "server"
        default: "unknown"
        }
    }

    /// The processors of a kernel CPU list such as `0-7,16,18-19`; malformed or impossible
    /// parts count none.
    static func cpuCount(_ list: String) -> Int {
        list.split(separator: ",").reduce(0) { count, part in
            let bounds = part.split(separator: "-").map { Int($0.trimmedSpaces()) }
            switch bounds.count {
            case 1 where bounds[0] != nil: return count + 1
            case 2:
                // Bounded, so no file can overflow the count: no kernel numbers 65,536 processors.
                guard let low = bounds[0], let high = bounds[1], high >= low, high < 65_536 else {
                    return count
                }
                return count + high - low + 1
            default: return count
            }
        }
    }

    #if !os(Linux)
    /// The description of an Apple device whose hardware is `profile`.
    static func apple(_ profile: HardwareProfile) -> DeviceInfo {
        #if os(macOS)
        // The Mac's model identifier, e.g. `MacBookPro18,3`; since 2023 many read `Mac14,2`,
        // which says nothing of the form: those count as desktops.
        let model = HardwareProfile.sysctlText("hw.model") ?? "Mac"
        let (platform, formFactor) = ("macos", model.hasPrefix("MacBook") ? "laptop" : "desktop")
        #else
        // `hw.model` is the board (`D84AP`) here; `hw.machine` the model (`iPad16,3`), which a
        // simulator names in its environment.
        let model =
            ProcessInfo.processInfo.environment["SIMULATOR_MODEL_IDENTIFIER"]
            ?? HardwareProfile.sysctlText("hw.machine") ?? "Unknown"
        #if os(iOS)
        let (platform, formFactor) = ("ios", model.hasPrefix("iPad") ? "tablet" : "phone")
        #elseif os(tvOS)
        let (platform, formFactor) = ("ios", "tv")
        #elseif os(watchOS)
        let (platform, formFactor) = ("ios", "watch")
        #else
        let (platform, formFactor) = ("ios", "headset")
        #endif
        #endif
        // Apple silicon's performance and efficiency levels; an Intel Mac has one level.
        let performance = min(HardwareProfile.sysctlInteger("hw.perflevel0.logicalcpu") ?? profile.cores, profile.cores)
        let efficiency = min(
            HardwareProfile.sysctlInteger("hw.perflevel1.logicalcpu") ?? 0,
            profile.cores - performance
        )
        return DeviceInfo(
            deviceModel: model,
            deviceName: hostName(),
            platform: platform,
            osVersion: profile.osVersion,
            formFactor: formFactor,
            architecture: profile.architecture,
            chipName: profile.cpu,
            totalMemory: Int(profile.memoryTotalBytes),
            availableMemory: Int(profile.memoryAvailableBytes),
            gpuFamily: profile.gpu?.vendor ?? "none",
            isLowPowerMode: ProcessInfo.processInfo.isLowPowerModeEnabled,
            coreCount: profile.cores,
            performanceCores: performance,
            efficiencyCores: efficiency
        )
    }

    /// The host's name from the kernel (`gethostname`), with no network lookup.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }
    #endif
}
