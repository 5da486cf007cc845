import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `runanywhere lora …`: the LoRA adapter catalog.
struct LoRACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lora",
        abstract: "List, register and check LoRA adapters.",
        discussion: """
            Adapters are applied per generation with `runanywhere generate --lora ID[:SCALE]` (or a \
            file path); registered adapters download with `runanywhere models download ID`.
            """,
        subcommands: [List.self, Register.self, Check.self]
    )

    struct List: SDKCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List registered LoRA adapters.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "Only adapters made for this model.") var model: String?
        @Flag(name: .long, help: "Print a JSON array.") var json = false

        func execute() async throws {
            try await CLI.start(global)
            let adapters =
                if let model { try await RunAnywhere.lora.adaptersForModel(model) } else {
                    try RunAnywhere.lora.allRegistered()
                }
            if json { return try CLI.printJSON(adapters, pretty: true) }
            if adapters.isEmpty {
                return print("No LoRA adapters registered. Add one with `runanywhere lora register`.")
            }
            for adapter in adapters {
                let shape = adapter.rank.map { "rank \($0), \(adapter.tensorCount ?? 0) tensors" } ?? "not downloaded"
                let bases =
                    adapter.baseModelIds.isEmpty
                    ? "any \(adapter.architecture ?? "") model" : adapter.baseModelIds.joined(separator: ",")
                print("\(adapter.id)\t\(shape)\tfor \(bases)\t\(adapter.name)")
            }
        }
    }

    struct Register: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "register",
            abstract: "Register a LoRA adapter: a GGUF file on this machine, or one to download."
        )
        @OptionGroup var global: GlobalOptions
        @Option(help: "The id to register it under.") var id: String
        @Option(help: "Display name.") var name: String?
        @Option(help: "A LoRA adapter GGUF file on this machine (used where it is).") var file: String?
        @Option(help: "Where to download it (http or https).") var url: String?
        @Option(help: "Expected SHA-256 of the download.") var sha256: String?
        @Option(name: .customLong("base-model"), help: "A model it was trained for (repeatable).")
        var baseModels: [String] = []
        @Flag(name: .long, help: "Print the registered adapter as JSON.") var json = false

        func validate() throws {
            guard (file == nil) != (url == nil) else { throw ValidationError("Give exactly one of --file and --url") }
        }

        func execute() async throws {
            try await CLI.start(global)
            let entry = try RunAnywhere.lora.register(
                LoraAdapterCatalogEntry(
                    id: id,
                    name: name,
                    framework: .llamaCpp,
                    baseModelIds: baseModels,
                    downloadURL: try url.map { text throws(SDKException) -> URL in
                        guard let url = URL(string: text) else {
                            throw SDKException(.invalidInput, "'\(text)' is not a URL")
                        }
                        return url
                    },
                    sha256: sha256,
                    localPath: file.map { URL(fileURLWithPath: $0) }
                )
            )
            if json { return try CLI.printJSON(entry) }
            print("Registered LoRA adapter \(entry.id)" + (entry.rank.map { " (rank \($0))" } ?? ""))
        }
    }

    struct Check: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check whether a registered adapter fits a model, from the files alone."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The adapter's id.") var id: String
        @Option(help: "The model (default: the default LLM).") var model: String = CLI.Defaults.llm
        @Flag(name: .long, help: "Print the result as JSON.") var json = false

        func execute() async throws {
            try await CLI.start(global)
            let result = await RunAnywhere.lora.checkCompatibility(id, model: model)
            if json {
                try CLI.printJSON(result)
            } else if result.isCompatible {
                print("\(id) fits \(model): changes \(result.matchedTensors) tensors, rank \(result.rank ?? 0)")
            } else {
                print("\(id) does not fit \(model): \(result.reason ?? "unknown reason")")
            }
            if !result.isCompatible { throw ExitCode(1) }
        }
    }
}

/// `--lora FILE_OR_ID[:SCALE]`: an adapter for one generation.
struct LoRAArgument: ExpressibleByArgument, Sendable {
    var adapter: String
    var scale: Float

    init?(argument: String) {
        if let colon = argument.lastIndex(of: ":"), let scale = Float(argument[argument.index(after: colon)...]) {
            adapter = String(argument[..<colon])
            self.scale = scale
        } else {
            adapter = argument
            scale = 1
        }
        guard !adapter.isEmpty, scale.isFinite else { return nil }
    }

    /// The selections for `arguments`: registered ids as they are; files registered for the
    /// command's duration under temporary ids, which `cleanup` removes (the files stay).
    static func resolve(
        _ arguments: [LoRAArgument]
    ) throws -> (selections: [LoRAAdapterSelection], cleanup: @Sendable () async -> Void) {
        var temporary: [String] = []
        var selections: [LoRAAdapterSelection] = []
        for argument in arguments {
            if (try? RunAnywhere.model(argument.adapter)) != nil {
                selections.append(LoRAAdapterSelection(id: argument.adapter, scale: argument.scale))
                continue
            }
            guard FileManager.default.fileExists(atPath: argument.adapter) else {
                throw SDKException(
                    .modelNotFound,
                    "--lora \(argument.adapter): no registered adapter has this id, and no file has this path"
                )
            }
            let id = "cli-lora-\(UUID().uuidString.prefix(8).lowercased())"
            try RunAnywhere.lora.register(
                LoraAdapterCatalogEntry(
                    id: id,
                    name: URL(fileURLWithPath: argument.adapter).lastPathComponent,
                    framework: .llamaCpp,
                    localPath: URL(fileURLWithPath: argument.adapter)
                )
            )
            temporary.append(id)
            selections.append(LoRAAdapterSelection(id: id, scale: argument.scale))
        }
        let ids = temporary
        return (selections, { for id in ids { try? await RunAnywhere.removeModel(id) } })
    }
}
