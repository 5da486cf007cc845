import Foundation
import RunAnywhereTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Hardware profile")
struct HardwareProfileTests {
    /// A Linux system made of fixture files.
    static func system(machine: String = "x86_64", files: [String: String]) -> HardwareProfile.LinuxSystem {
        HardwareProfile.LinuxSystem(
            machine: machine,
            read: { files[$0] },
            list: { folder in
                Set(
                    files.keys.compactMap { path -> String? in
                        guard path.hasPrefix(folder + "/") else { return nil }
                        return path.dropFirst(folder.count + 1).split(separator: "/").first.map(String.init)
                    }
                ).sorted()
            }
        )
    }

    static func x86Processor(_ index: Int, core: Int) -> String {
        """
        processor\t: \(index)
        vendor_id\t: GenuineIntel
        model name\t: Intel(R) Xeon(R) Platinum 8480+
        physical id\t: 0
        core id\t\t: \(core)
        flags\t\t: fpu vme sse sse2 ssse3 sse4_1 sse4_2 avx f16c fma avx2 avx512f avx512bw avx512_vnni amx_tile amx_int8
        """
    }

    static let meminfo = """
        MemTotal:       16384000 kB
        MemFree:         1000000 kB
        MemAvailable:    8192000 kB
        """

    @Test("A Linux container's profile: its memory limit, physical cores, vector features, NVIDIA and other GPUs")
    func linuxContainer() {
        let nvidiaInfo = { (name: String) in
            "Model: \t\t \(name)\nIRQ:   \t\t 140\nGPU UUID: \t GPU-1234\nBus Location: \t 0000:01:00.0\n"
        }
        let files = [
            "/proc/cpuinfo": (0..<4).map { Self.x86Processor($0, core: $0 / 2) }.joined(separator: "\n\n") + "\n\n",
            "/proc/meminfo": Self.meminfo,
            "/sys/fs/cgroup/memory.max": "2147483648\n",
            "/sys/fs/cgroup/memory.current": "536870912\n",
            "/proc/driver/nvidia/version":
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n",
            "/proc/driver/nvidia/gpus/0000:01:00.0/information": nvidiaInfo("NVIDIA GeForce RTX 4090"),
            "/proc/driver/nvidia/gpus/0000:02:00.0/information": nvidiaInfo("NVIDIA L4"),
            "/sys/class/drm/card0/device/vendor": "0x10de\n",
            "/sys/class/drm/card0-HDMI-A-1/status": "connected\n",
            "/sys/class/drm/card1/device/vendor": "0x8086\n",
            "/etc/os-release": "NAME=\"Ubuntu\"\nPRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\n",
            "/proc/sys/kernel/osrelease": "6.8.0-45-generic\n",
        ]
        let profile = HardwareProfile.linux(reading: Self.system(files: files)) {
            "NVIDIA GeForce RTX 4090, 24564\nNVIDIA L4, 23034\n"
        }
        #expect(profile.cpu == "Intel(R) Xeon(R) Platinum 8480+")
        #expect(profile.architecture == "x86_64")
        #expect(profile.physicalCores == 2)
        #expect(
            profile.simdFeatures == [
                "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512_vnni", "amx_tile", "amx_int8",
            ]
        )
        #expect(profile.supports("AVX512F"))
        #expect(!profile.supports("avx_vnni"))
        #expect(profile.memoryTotalBytes == 2_147_483_648)
        #expect(profile.memoryAvailableBytes == 2_147_483_648 - 536_870_912)
        #expect(profile.memoryLimitedByContainer)
        #expect(
            profile.gpus == [
                GPUInfo(
                    vendor: "nvidia",
                    name: "NVIDIA GeForce RTX 4090",
                    memoryBytes: 24564 * 1_048_576,
                    driverVersion: "535.104.05"
                ),
                GPUInfo(
                    vendor: "nvidia",
                    name: "NVIDIA L4",
                    memoryBytes: 23034 * 1_048_576,
                    driverVersion: "535.104.05"
                ),
                GPUInfo(vendor: "intel", name: "intel GPU (card1)"),
            ]
        )
        #expect(profile.gpu?.name == "NVIDIA GeForce RTX 4090")
        #expect(profile.os == "Ubuntu 24.04.1 LTS")
        #expect(profile.osVersion == "6.8.0-45-generic")
    }

    @Test("An ARM board's profile: the name from the device tree or the implementer, NEON and its extensions")
    func linuxARM() {
        let processor = """
            processor\t: 0
            BogoMIPS\t: 108.00
            Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp
            CPU implementer\t: 0x41
            CPU part\t: 0xd0b
            """
        var files = [
            "/proc/cpuinfo": processor + "\n\n" + processor.replacingOccurrences(of: ": 0\n", with: ": 1\n"),
            "/proc/meminfo": Self.meminfo,
            // cgroup v1 without a limit: Int64.max rounded down to a page.
            "/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
            "/sys/fs/cgroup/memory/memory.usage_in_bytes": "1878376448\n",
        ]
        let plain = HardwareProfile.linux(reading: Self.system(machine: "arm64", files: files)) { nil }
        #expect(plain.cpu == "ARM processor")
        #expect(plain.architecture == "arm64")
        #expect(plain.simdFeatures == ["neon", "dotprod", "fp16"])
        #expect(plain.physicalCores == nil)
        #expect(plain.memoryTotalBytes == 16_384_000 * 1024)
        #expect(plain.memoryAvailableBytes == 8_192_000 * 1024)
        #expect(!plain.memoryLimitedByContainer)
        #expect(plain.gpus.isEmpty)
        #expect(plain.os == "Linux")

        files["/proc/device-tree/model"] = "Raspberry Pi 5 Model B Rev 1.0\u{0}"
        let pi = HardwareProfile.linux(reading: Self.system(machine: "arm64", files: files)) { nil }
        #expect(pi.cpu == "Raspberry Pi 5 Model B Rev 1.0")
    }

    @Test("With nothing readable in /proc, the profile still has the process's view of memory and cores")
    func linuxWithoutProc() {
        let profile = HardwareProfile.linux(reading: Self.system(files: [:])) { nil }
        #expect(profile.cpu == "x86_64")
        #expect(profile.cores == ProcessInfo.processInfo.activeProcessorCount)
        #expect(profile.memoryTotalBytes == Int64(ProcessInfo.processInfo.physicalMemory))
        #expect(profile.simdFeatures.isEmpty)
        #expect(profile.gpus.isEmpty)
    }

    @Test("This machine's profile agrees with what the process sees")
    func thisMachine() throws {
        let home = FileManager.default.temporaryDirectory
        let profile = HardwareProfile.current(diskPath: home)
        #expect(!profile.cpu.isEmpty)
        #expect(profile.cores == ProcessInfo.processInfo.activeProcessorCount)
        #expect(profile.memoryTotalBytes > 0)
        #expect(profile.memoryTotalBytes <= Int64(ProcessInfo.processInfo.physicalMemory))
        #expect(profile.memoryAvailableBytes > 0 && profile.memoryAvailableBytes <= profile.memoryTotalBytes)
        #expect(profile.diskFreeBytes > 0)
        #expect(profile.diskFreeBytes <= FileSystem.volumeSpace(at: home).totalBytes)
        if profile.architecture == "x86_64" {
            // The engines are built for AVX2 (ENGINES.md); a machine that runs this suite has it.
            #expect(profile.supports("avx2"))
        }
        let fm = FileManager.default
        if !fm.fileExists(atPath: "/proc/driver/nvidia/gpus"), !fm.fileExists(atPath: "/sys/class/drm") {
            #expect(profile.gpus.isEmpty)
        }
        let decoded = try JSONDecoder().decode(HardwareProfile.self, from: JSONEncoder().encode(profile))
        #expect(decoded == profile)
    }

    @Test("A laptop's device description: firmware model and chassis, battery, hybrid cores, low-power profile")
    func deviceInfoOfALaptop() throws {
        let files = [
            "/proc/cpuinfo": Self.x86Processor(0, core: 0),
            "/proc/meminfo": Self.meminfo,
            "/proc/sys/kernel/osrelease": "6.8.0-45-generic\n",
            "/proc/sys/kernel/hostname": "ana-laptop\n",
            "/sys/class/dmi/id/product_name": "ThinkPad X1 Carbon Gen 11\n",
            "/sys/class/dmi/id/chassis_type": "10\n",
            "/sys/class/power_supply/AC/type": "Mains\n",
            "/sys/class/power_supply/BAT0/type": "Battery\n",
            "/sys/class/power_supply/BAT0/capacity": "57\n",
            "/sys/class/power_supply/BAT0/status": "Discharging\n",
            "/sys/devices/cpu_core/cpus": "0-3,8\n",
            "/sys/devices/cpu_atom/cpus": "4-7,9-11\n",
            "/sys/firmware/acpi/platform_profile": "low-power\n",
        ]
        let system = Self.system(files: files)
        var profile = HardwareProfile.linux(reading: system) { nil }
        profile.cores = 12
        let device = DeviceInfo.linux(profile, reading: system)
        #expect(device.deviceModel == "ThinkPad X1 Carbon Gen 11")
        #expect(device.modelName == device.deviceModel)
        #expect(device.deviceName == "ana-laptop")
        #expect(device.platform == "linux")
        #expect(device.osVersion == "6.8.0-45-generic")
        #expect(device.cleanOSVersion == "6.8.0")
        #expect(device.formFactor == "laptop")
        #expect(device.deviceType == "desktop")
        #expect(device.chipName == "Intel(R) Xeon(R) Platinum 8480+")
        #expect(device.architecture == "x86_64")
        #expect(device.totalMemory == 16_384_000 * 1024)
        #expect(device.batteryLevel == 0.57)
        #expect(device.batteryState == "unplugged")
        #expect(device.isLowPowerMode)
        #expect(device.performanceCores == 5)
        #expect(device.efficiencyCores == 7)
        // The lists are the machine's; a process limited to 6 processors counts within them.
        profile.cores = 6
        let limited = DeviceInfo.linux(profile, reading: system)
        #expect(limited.performanceCores == 5 && limited.efficiencyCores == 1)
        #expect(!device.hasNeuralEngine && device.neuralEngineCores == 0)
        #expect(device.gpuFamily == "none")
        #expect(device.deviceFingerprint == nil && device.deviceId.isEmpty)

        // The original's JSON keys.
        let json = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(device)) as? [String: Any])
        #expect(json["device_model"] as? String == "ThinkPad X1 Carbon Gen 11")
        #expect(json["efficiency_cores"] as? Int == 7)
        #expect(json["is_low_power_mode"] as? Bool == true)
        #expect(try JSONDecoder().decode(DeviceInfo.self, from: JSONEncoder().encode(device)) == device)
    }

    @Test("A board or server that says little: the device tree's model, no battery, every core a performance core")
    func deviceInfoOfABoard() {
        var files = [
            "/proc/device-tree/model": "Raspberry Pi 5 Model B Rev 1.0\u{0}",
            "/sys/class/dmi/id/chassis_type": "23\n",
            "/sys/class/power_supply/AC/type": "Mains\n",
            // A Bluetooth mouse's battery is not the device's.
            "/sys/class/power_supply/hid-00:1f:20:aa:bb:cc-battery/type": "Battery\n",
            "/sys/class/power_supply/hid-00:1f:20:aa:bb:cc-battery/scope": "Device\n",
            "/sys/class/power_supply/hid-00:1f:20:aa:bb:cc-battery/capacity": "80\n",
            "/sys/firmware/acpi/platform_profile": "balanced\n",
        ]
        let system = Self.system(machine: "arm64", files: files)
        let profile = HardwareProfile.linux(reading: system) { nil }
        let device = DeviceInfo.linux(profile, reading: system)
        #expect(device.deviceModel == "Raspberry Pi 5 Model B Rev 1.0")
        #expect(device.deviceName == "localhost")
        #expect(device.formFactor == "server")
        #expect(device.batteryLevel == nil && device.batteryState == nil)
        #expect(!device.isLowPowerMode)
        #expect(device.performanceCores == profile.cores && device.efficiencyCores == 0)
        #expect(DeviceInfo.formFactor(chassisType: nil) == "unknown")
        #expect(DeviceInfo.formFactor(chassisType: "3") == "desktop")
        #expect(DeviceInfo.cpuCount("0-7,16,18-19") == 11)
        #expect(DeviceInfo.cpuCount("7-3,x,") == 0)
        #expect(DeviceInfo.cpuCount("0-9223372036854775807,-5-2,99999999999999999999") == 0)
        #expect(DeviceInfo(osVersion: "Version 17.2 (Build 21C52)").cleanOSVersion == "17.2")
        #expect(DeviceInfo(osVersion: "rolling").cleanOSVersion == "rolling")
        #expect(DeviceInfo(osVersion: "5.15").cleanOSVersion == "5.15")
        #expect(DeviceInfo(osVersion: "build ²³.٣").cleanOSVersion == "build ²³.٣")
        #expect(device.deviceType == "desktop", "a server")

        // A laptop held at a charge limit is plugged in, neither charging nor unplugged; a
        // capacity that is not a percentage is no level.
        files["/sys/class/power_supply/BAT1/type"] = "Battery\n"
        files["/sys/class/power_supply/BAT1/status"] = "Not charging\n"
        files["/sys/class/power_supply/BAT1/capacity"] = "nan\n"
        files["/sys/class/dmi/id/chassis_type"] = nil
        let held = DeviceInfo.linux(profile, reading: Self.system(machine: "arm64", files: files))
        #expect(held.batteryState == nil && held.batteryLevel == nil)
        #expect(held.formFactor == "unknown" && held.deviceType == "desktop", "a Linux board of unknown form")
    }

    @Test("This device's description agrees with its hardware profile and the kernel's host name")
    func deviceInfoOfThisMachine() {
        let device = DeviceInfo.current
        let profile = HardwareProfile.current()
        #if os(Linux)
        #expect(device.platform == "linux")
        #endif
        #expect(device.coreCount == profile.cores)
        #expect(device.chipName == profile.cpu)
        #expect(device.totalMemory == Int(profile.memoryTotalBytes))
        #if os(Linux)
        let hostname = (try? String(contentsOfFile: "/proc/sys/kernel/hostname", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(device.deviceName == hostname ?? "localhost")
        #endif
        #expect(device.performanceCores >= 1)
        #expect(device.performanceCores + device.efficiencyCores <= device.coreCount)
    }

    @Test("A model fits when its file and working memory fit the free memory, and a download fits the disk")
    func fitting() {
        let profile = HardwareProfile(
            cpu: "test",
            architecture: "x86_64",
            cores: 2,
            physicalCores: 2,
            simdFeatures: [],
            memoryTotalBytes: 4 << 30,
            memoryAvailableBytes: 2 << 30,
            memoryLimitedByContainer: false,
            diskFreeBytes: 1 << 30,
            gpus: [],
            os: "test",
            osVersion: "1"
        )
        func model(size: Int64?, downloaded: Bool) -> ModelInfo {
            ModelInfo(
                id: "m",
                name: "m",
                category: .llm,
                format: .gguf,
                framework: .llamaCpp,
                localPath: downloaded ? URL(fileURLWithPath: "/models/m.gguf") : nil,
                sizeBytes: size
            )
        }
        #expect(profile.fits(model(size: 1 << 30, downloaded: true)))
        // 1.7 GiB × 1.25 > 2 GiB of free memory.
        #expect(!profile.fits(model(size: 1_700 << 20, downloaded: true)))
        // 1.5 GiB fits the memory with its working share, but not the 1 GiB of free disk.
        #expect(!profile.fits(model(size: 1_500 << 20, downloaded: false)))
        #expect(profile.fits(model(size: 900 << 20, downloaded: false)))
        #expect(!profile.fits(model(size: nil, downloaded: true)))
    }

    @Test("Recommended models are the registered ones that fit, largest first, without adapters")
    func recommended() async throws {
        try await withDeterministicSDK { sdk in
            let url = URL(string: "http://127.0.0.1:9/model.gguf")!
            let free = sdk.hardwareProfile.memoryAvailableBytes
            let sizes: [(String, ModelCategory, Int64?)] = [
                ("small", .llm, 1 << 20),
                ("medium", .llm, 8 << 20),
                ("huge", .llm, free * 2),
                ("unknown", .llm, nil),
                ("voice", .speechSynthesis, 2 << 20),
                ("adapter", .loraAdapter, 1 << 20),
            ]
            for (id, category, size) in sizes {
                try sdk.registerModel(
                    ModelInfo(
                        id: id,
                        name: id,
                        category: category,
                        format: .gguf,
                        framework: .llamaCpp,
                        sizeBytes: size,
                        downloadURL: url
                    )
                )
            }
            // The deterministic backend's own models are registered too: look at these only.
            let ours = Set(sizes.map(\.0))
            func recommended(_ category: ModelCategory?) throws -> [String] {
                try sdk.recommendedModels(category: category).map(\.id).filter(ours.contains)
            }
            #expect(try recommended(.llm) == ["medium", "small"])
            #expect(try recommended(nil) == ["medium", "voice", "small"])
            #expect(try recommended(.loraAdapter) == ["adapter"])
        }
    }
}

extension DeviceInfo {
    /// A description that differs from a plain one only in its OS version.
    init(osVersion: String) {
        self.init(
            deviceModel: "m",
            deviceName: "n",
            platform: "linux",
            osVersion: osVersion,
            formFactor: "unknown",
            architecture: "x86_64",
            chipName: "c",
            totalMemory: 1,
            availableMemory: 1,
            gpuFamily: "none",
            coreCount: 1,
            performanceCores: 1
        )
    }
}
