import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `runanywhere storage …`: disk use of the SDK's home.
struct StorageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storage",
        abstract: "Show and free the space the SDK uses.",
        subcommands: [Info.self, ClearCache.self, CleanTemp.self]
    )

    struct Info: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "Device space, and the size and last use of every stored model."
        )
        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Print JSON.") var json = false

        func execute() async throws {
            try await CLI.start(global)
            let info = try RunAnywhere.storageInfo()
            if json { return try CLI.printJSON(Report(info), pretty: true) }
            let b = CLI.bytes
            print("Home     \(info.home.path)")
            print(
                "Device   \(b(info.device.freeBytes)) free of \(b(info.device.totalBytes)) (\(Int(info.device.usedFraction * 100))% used)"
            )
            print(
                "Models   \(b(info.modelsBytes)) in \(info.models.count) model(s); cache \(b(info.cacheBytes)); temporary \(b(info.tempBytes))"
            )
            for model in info.models {
                let used = model.lastUsedAt.map { "last used \($0.formatted(.iso8601))" } ?? "never used"
                print("  \(model.id)\t\(b(model.sizeBytes))\t\(model.framework.rawValue)\t\(used)")
            }
        }
    }

    struct ClearCache: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear-cache",
            abstract: "Empty the SDK's cache folder."
        )
        @OptionGroup var global: GlobalOptions

        func execute() async throws {
            try await CLI.start(global)
            print("Freed \(CLI.bytes(try RunAnywhere.clearCache()))")
        }
    }

    struct CleanTemp: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "clean-temp",
            abstract: "Delete temporary files and partial downloads that nothing is using."
        )
        @OptionGroup var global: GlobalOptions

        func execute() async throws {
            try await CLI.start(global)
            print("Freed \(CLI.bytes(try RunAnywhere.cleanTempFiles()))")
        }
    }

    /// `storage info --json`.
    struct Report: Encodable {
        struct Model: Encodable {
            let id, name, category, framework, path: String
            let sizeBytes: Int64
            let downloadedAt, lastUsedAt: Date?
        }
        let home: String
        let deviceTotalBytes, deviceFreeBytes, modelsBytes, cacheBytes, tempBytes: Int64
        let models: [Model]

        init(_ info: StorageInfo) {
            home = info.home.path
            deviceTotalBytes = info.device.totalBytes
            deviceFreeBytes = info.device.freeBytes
            modelsBytes = info.modelsBytes
            cacheBytes = info.cacheBytes
            tempBytes = info.tempBytes
            models = info.models.map {
                Model(
                    id: $0.id,
                    name: $0.name,
                    category: $0.category.rawValue,
                    framework: $0.framework.rawValue,
                    path: $0.path.path,
                    sizeBytes: $0.sizeBytes,
                    downloadedAt: $0.downloadedAt,
                    lastUsedAt: $0.lastUsedAt
                )
            }
        }
    }
}
