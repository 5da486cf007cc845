import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reports the engines, the SDK home and the models.
struct DoctorCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check engines, storage and models."
    )

    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print one JSON object.") var json = false

    struct Report: Encodable {
        var sdkVersion: String
        var home: String
        var engines: [EngineInfo]
        var downloadLibraries: [String: String]
        var models: [ModelInfo]
        var modelFilesMissing: [String]
        var hardware: HardwareProfile
        var accelerators: [AcceleratorInfo]
        var acceleratorPreference: AcceleratorPreference
        /// Why `--accelerator gpu` is refused here, when it is.
        var gpuUnavailableReason: String?
        var plugins: PluginsCommand.Report
        /// Tool-server clients by protocol (`mcp`) and what provides them.
        var toolServers: [String: String]
        /// What this build can do with the engines registered, and what it cannot.
        var capabilities: [SDKCapability]
    }

    func execute() async throws {
        try await CLI.start(global)
        let models = try RunAnywhere.availableModels()
        let missing = models.filter { model in
            model.localPath.map { !FileManager.default.fileExists(atPath: $0.path) } ?? false
        }.map(\.id)
        let report = Report(
            sdkVersion: RunAnywhere.version,
            home: RunAnywhere.paths?.home.path ?? "",
            engines: RunAnywhere.registeredModules.map { $0.engineInfo() },
            downloadLibraries: RunAnywhere.downloadLibraries,
            models: models,
            modelFilesMissing: missing,
            hardware: RunAnywhere.hardwareProfile,
            accelerators: RunAnywhere.hardware.getAccelerators(),
            acceleratorPreference: RunAnywhere.hardware.acceleratorPreference,
            gpuUnavailableReason: RunAnywhere.hardware.gpuUnavailableReason,
            plugins: PluginsCommand.report(),
            toolServers: ["mcp": "MCP swift-sdk, built in"],
            capabilities: try RunAnywhere.capabilities()
        )
        if json { return try CLI.printJSON(report) }
        print("RunAnywhere \(report.sdkVersion)")
        print("home:    \(report.home)")
        let hardware = report.hardware
        let gib = { (bytes: Int64) in String(printf: "%.1f GiB", Double(bytes) / 1_073_741_824) }
        print("hardware:")
        print("  cpu:    \(hardware.cpu) (\(hardware.architecture)), \(hardware.cores) cores")
        print("  simd:   \(hardware.simdFeatures.joined(separator: " "))")
        print(
            "  memory: \(gib(hardware.memoryAvailableBytes)) available of \(gib(hardware.memoryTotalBytes))"
                + (hardware.memoryLimitedByContainer ? " (container limit)" : "")
        )
        print("  disk:   \(gib(hardware.diskFreeBytes)) free")
        print("  gpu:    \(hardware.gpus.isEmpty ? "none" : hardware.gpus.map(\.name).joined(separator: ", "))")
        print("  os:     \(hardware.os), \(hardware.osVersion)")
        print("accelerators (preference: \(report.acceleratorPreference.rawValue)):")
        for accelerator in report.accelerators {
            let engines =
                accelerator.engines.isEmpty ? "no engine can use it" : accelerator.engines.joined(separator: ", ")
            print("  \(accelerator.usable ? "✓" : "✗") \(accelerator.kind.rawValue) \(accelerator.name): \(engines)")
        }
        if let reason = report.gpuUnavailableReason {
            print("  gpu:    unavailable: \(reason). See \"Accelerators\" in the README.")
        }
        print("engines:")
        for engine in report.engines {
            print("  \(engine.available ? "✓" : "✗") \(engine.name) \(engine.version ?? "")")
            for (key, value) in engine.details.sorted(by: { $0.key < $1.key }) { print("      \(key): \(value)") }
        }
        print("capabilities:")
        for capability in report.capabilities {
            let detail = capability.available ? capability.providers.joined(separator: ", ") : capability.reason ?? ""
            print("  \(capability.available ? "✓" : "✗") \(capability.kind.rawValue): \(detail)")
        }
        print("plugins (API \(report.plugins.apiVersion)):")
        if report.plugins.loaded.isEmpty && report.plugins.failed.isEmpty { print("  none loaded") }
        for plugin in report.plugins.loaded { print("  ✓ \(plugin.name): \(plugin.path)") }
        for (path, reason) in report.plugins.failed.sorted(by: { $0.key < $1.key }) { print("  ✗ \(path): \(reason)") }
        print("tool servers:")
        for (name, plugin) in report.toolServers.sorted(by: { $0.key < $1.key }) {
            print("  \(plugin.hasPrefix("not available") ? "✗" : "✓") \(name): \(plugin)")
        }
        print("downloads:")
        for (name, version) in report.downloadLibraries.sorted(by: { $0.key < $1.key }) {
            print("  \(version.hasPrefix("not available") ? "✗" : "✓") \(name): \(version)")
        }
        print("models:  \(models.count)")
        for model in models {
            let state = missing.contains(model.id) ? "FILE MISSING" : model.isDownloaded ? "ready" : "not downloaded"
            print("  \(model.id) (\(model.category.rawValue), \(model.framework.rawValue)) — \(state)")
        }
        if !missing.isEmpty { throw ExitCode(1) }
    }
}
