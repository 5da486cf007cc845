import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere models …`: the model registry.
struct ModelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models", abstract: "List, import and remove models.",
        subcommands: [List.self, Import.self, Remove.self])

    struct List: SDKCommand {
        static let configuration = CommandConfiguration(abstract: "List registered models.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "Only this category (llm, embedding, stt, tts, vad, vlm).") var category: ModelCategory?
        @Flag(name: .long, help: "Print a JSON array.") var json = false

        func execute() async throws {
            try CLI.start(global)
            let models = try RunAnywhere.models(category: category)
            if json { return try CLI.printJSON(models, pretty: true) }
            if models.isEmpty { return print("No models registered. Import one with `runanywhere models import`.") }
            for model in models {
                let size = model.sizeBytes.map { ByteCountFormatter.string(fromByteCount: $0, countStyle: .file) } ?? "?"
                print("\(model.id)\t\(model.category.rawValue)\t\(model.framework.rawValue)\t\(size)\t\(model.name)")
            }
        }
    }

    struct Import: SDKCommand {
        static let configuration = CommandConfiguration(abstract: "Copy (or move) a local model file or model folder into the store.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The model file, or a folder holding a model's files.") var path: String
        @Option(help: "For a folder: the primary file engines open (default: the only model file in it).") var file: String?
        @Option(help: "The id to register it under.") var id: String
        @Option(help: "Display name.") var name: String?
        @Option(help: "llm, embedding, stt, tts, vad or vlm.") var category: ModelCategory
        @Option(help: "llamacpp, whispercpp, sherpa, system.") var framework: InferenceFramework
        @Flag(help: "Move the file instead of copying it.") var move = false
        @Flag(name: .long, help: "Print the registered model as JSON.") var json = false

        func execute() async throws {
            try CLI.start(global)
            let model = try RunAnywhere.importModel(from: URL(fileURLWithPath: path), id: id, name: name, category: category,
                                                    framework: framework, mode: move ? .move : .copy, primaryFile: file)
            if json { return try CLI.printJSON(model) }
            print("Imported \(model.id) → \(model.localPath?.path ?? "?")")
        }
    }

    struct Remove: SDKCommand {
        static let configuration = CommandConfiguration(abstract: "Unregister a model and delete its stored files.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The model id.") var id: String

        func execute() async throws {
            try CLI.start(global)
            try await RunAnywhere.removeModel(id)
            print("Removed \(id)")
        }
    }
}

extension ModelCategory: ExpressibleByArgument {}
extension InferenceFramework: ExpressibleByArgument {}
