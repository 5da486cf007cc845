import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `runanywhere models …`: the model registry.
struct ModelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "List, register, download, import, delete and remove models.",
        subcommands: [
            List.self, Register.self, RegisterRemote.self, Download.self, Import.self, Delete.self, Remove.self,
            Check.self, Pull.self,
        ]
    )

    struct List: SDKCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List registered models.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "Only this category (llm, embedding, stt, tts, vad, vlm, speaker-embedding, lora).") var category:
            ModelCategory?
        @Flag(name: .long, help: "Print a JSON array.") var json = false

        func execute() async throws {
            try await CLI.start(global)
            let models = try RunAnywhere.models(category: category)
            if json { return try CLI.printJSON(models, pretty: true) }
            if models.isEmpty { return print("No models registered. Import one with `runanywhere models import`.") }
            for model in models {
                let size = model.sizeBytes.map(CLI.bytes) ?? "?"
                let state =
                    model.isDownloaded
                    ? (model.remote == nil ? "on disk" : "on disk+remote")
                    : model.remote != nil ? "remote" : model.isDownloadable ? "downloadable" : "missing"
                print(
                    "\(model.id)\t\(model.category.rawValue)\t\(model.framework.rawValue)\t\(size)\t\(state)\t\(model.name)"
                )
            }
        }
    }

    struct RegisterRemote: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "register-remote",
            abstract:
                "Register a model served by an OpenAI-compatible server (vLLM, llama-server, Ollama, runanywhere serve).",
            discussion: """
                An id that is already registered keeps its local files and gains the endpoint; --routing then \
                decides where each request runs. The API key is read from the environment variable named by \
                --api-key-env and kept in the secure store, never in the registry.
                """
        )
        @OptionGroup var global: GlobalOptions
        @Option(help: "The id to register it under.") var id: String
        @Option(name: .customLong("base-url"), help: "The server's OpenAI base URL, e.g. http://127.0.0.1:8080/v1.")
        var baseURL: String
        @Option(name: .customLong("remote-model"), help: "The model's name on the server.") var remoteModel: String
        @Option(name: .customLong("api-key-env"), help: "An environment variable holding the API key.")
        var apiKeyEnv: String?
        @Option(help: "llm, embedding or stt (default: llm, or the registered model's own).") var category:
            ModelCategory?
        @Option(help: "Seconds to wait for the server (a whole answer, or between two streamed chunks).")
        var timeout: Double = 60
        @Flag(name: .long, help: "Print the registered model as JSON.") var json = false

        func execute() async throws {
            var apiKey: String?
            if let apiKeyEnv {
                guard let value = ProcessInfo.processInfo.environment[apiKeyEnv], !value.isEmpty else {
                    throw SDKException(.invalidAPIKey, "The environment variable $\(apiKeyEnv) is not set")
                }
                apiKey = value
            }
            guard let url = URL(string: baseURL) else {
                throw SDKException(.invalidBaseURL, "'\(baseURL)' is not a URL")
            }
            try await CLI.start(global)
            let model = try RunAnywhere.registerRemoteModel(
                id: id,
                baseURL: url,
                remoteModelName: remoteModel,
                apiKey: apiKey,
                category: category,
                timeoutSeconds: timeout
            )
            if json { return try CLI.printJSON(model, pretty: true) }
            print("Registered \(model.id): \(remoteModel) at \(url.absoluteString)")
        }
    }

    struct Import: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Copy (or move) a local model file or model folder into the store."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The model file, or a folder holding a model's files.") var path: String
        @Option(help: "For a folder: the primary file engines open (default: the only model file in it).") var file:
            String?
        @Option(help: "The id to register it under.") var id: String
        @Option(help: "Display name.") var name: String?
        @Option(help: "llm, embedding, stt, tts, vad, vlm, speaker-embedding or lora.") var category: ModelCategory
        @Option(help: "llamacpp, whispercpp, sherpa, system, resemblyzer.") var framework: InferenceFramework
        @Flag(help: "Move the file instead of copying it.") var move = false
        @Option(help: "For a vlm: its vision projector (mmproj GGUF), imported beside the model.") var projector:
            String?
        @Flag(name: .long, help: "Print the registered model as JSON.") var json = false

        func execute() async throws {
            try await CLI.start(global)
            if let projector {
                guard category == .vision else {
                    throw SDKException(.invalidInput, "--projector is for vision-language models (--category vlm)")
                }
                let model = try RunAnywhere.importVLMModel(
                    from: URL(fileURLWithPath: path),
                    projector: URL(fileURLWithPath: projector),
                    id: id,
                    name: name,
                    framework: framework,
                    mode: move ? .move : .copy
                )
                if json { return try CLI.printJSON(model) }
                return print("Imported \(model.id) → \(model.localPath?.path ?? "?") with \(projector)")
            }
            let model = try RunAnywhere.importModel(
                from: URL(fileURLWithPath: path),
                id: id,
                name: name,
                category: category,
                framework: framework,
                mode: move ? .move : .copy,
                primaryFile: file
            )
            if json { return try CLI.printJSON(model) }
            print("Imported \(model.id) → \(model.localPath?.path ?? "?")")
        }
    }

    struct Register: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "register",
            abstract: "Register a model by URL, to download later with `models download`.",
            discussion: """
                One --url registers a single file, or an archive with --archive. Several --url \
                options register a multi-file model whose primary file is --file (default: the first).
                """
        )
        @OptionGroup var global: GlobalOptions
        @Option(help: "The id to register it under.") var id: String
        @Option(help: "Display name.") var name: String?
        @Option(
            help:
                "Where to download it (http or https, or a reference hf.co/ORG/REPO/FILE.gguf); repeat for a multi-file model."
        )
        var url: [String]
        @Option(help: "llm, embedding, stt, tts, vad, vlm, speaker-embedding or lora.") var category: ModelCategory
        @Option(help: "llamacpp, whispercpp, sherpa, system, resemblyzer.") var framework: InferenceFramework
        @Option(help: "Expected SHA-256 (hex); one per --url, in order.") var sha256: [String] = []
        @Option(help: "Expected size in bytes; one per --url, in order.") var size: [Int64] = []
        @Option(help: "The URL is an archive of this type: zip, tar.gz, tar.bz2 or tar.xz.") var archive: ArchiveType?
        @Option(
            help:
                "Archive: the primary file's path inside it. Multi-file: the primary file. One file: its name on disk."
        )
        var file: String?
        @Option(help: "Archive: another path it must contain (repeatable).") var expect: [String] = []
        @Option(help: "For a vlm of two --url: the file name of the vision projector (the other is the model).")
        var projector: String?
        @Flag(name: .long, help: "Print the registered model as JSON.") var json = false

        func execute() async throws {
            try await CLI.start(global)
            if url.count == 1, ModelReference.isReference(url[0]) {
                let model = try await RunAnywhere.registerModel(
                    reference: url[0],
                    id: id,
                    name: name,
                    category: category,
                    framework: framework
                )
                if json { return try CLI.printJSON(model, pretty: true) }
                return print(
                    "Registered \(model.id) from \(url[0]); download it with `runanywhere models download \(model.id)`"
                )
            }
            let urls = try url.map { text throws(SDKException) -> URL in
                guard let url = URL(string: text) else { throw SDKException(.invalidInput, "'\(text)' is not a URL") }
                return url
            }
            guard !urls.isEmpty else { throw SDKException(.invalidInput, "Give at least one --url") }
            guard sha256.isEmpty || sha256.count == urls.count, size.isEmpty || size.count == urls.count else {
                throw SDKException(.invalidInput, "Give one --sha256 and one --size per --url, or none")
            }
            let files = urls.indices.map { index in
                RemoteFile(
                    url: urls[index],
                    sha256: sha256.isEmpty ? nil : sha256[index],
                    sizeBytes: size.isEmpty ? nil : size[index]
                )
            }
            let name = name ?? id
            let model: ModelInfo
            if let projector {
                guard category == .vision, files.count == 2,
                    let mmproj = files.first(where: { $0.fileName == projector }),
                    let main = files.first(where: { $0.fileName != projector })
                else {
                    throw SDKException(
                        .invalidInput,
                        "--projector names one of two --url files of a vlm (--category vlm)"
                    )
                }
                model = try RunAnywhere.registerVLMModel(
                    model: main,
                    projector: mmproj,
                    id: id,
                    name: name,
                    framework: framework
                )
            } else if archive != nil || ArchiveType(url: urls[0]) != nil {
                guard urls.count == 1 else { throw SDKException(.invalidInput, "An archive model has one --url") }
                guard let file else { throw SDKException(.invalidInput, "Name the archive's primary file with --file") }
                let spec = try ModelArchive(
                    url: urls[0],
                    type: archive,
                    primaryFile: file,
                    expectedFiles: expect,
                    sha256: files[0].sha256,
                    sizeBytes: files[0].sizeBytes
                )
                model = try RunAnywhere.registerModel(
                    archive: spec,
                    id: id,
                    name: name,
                    framework: framework,
                    category: category
                )
            } else if files.count > 1 {
                model = try RunAnywhere.registerModel(
                    multiFile: files,
                    primaryFile: file ?? files[0].fileName,
                    id: id,
                    name: name,
                    framework: framework,
                    category: category
                )
            } else {
                model = try RunAnywhere.registerModel(
                    id: id,
                    name: name,
                    url: urls[0],
                    framework: framework,
                    category: category,
                    fileName: file,
                    sha256: files[0].sha256,
                    sizeBytes: files[0].sizeBytes
                )
            }
            if json { return try CLI.printJSON(model) }
            print("Registered \(model.id); fetch it with `runanywhere models download \(model.id)`")
        }
    }

    struct Delete: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a model's files; a model registered by URL stays registered for a later download."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The model id.") var id: String

        func execute() async throws {
            try await CLI.start(global)
            let downloadable = try RunAnywhere.model(id).isDownloadable
            try await RunAnywhere.deleteModel(id)
            print(downloadable ? "Deleted the files of \(id); it can be downloaded again" : "Deleted \(id)")
        }
    }

    struct Check: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check whether a model fits this device: memory with a context, disk for a download.",
            discussion: "Exits with status 1 when it does not fit, after saying why."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The model id.") var id: String
        @Option(
            name: .customLong("context-length"),
            help: "The context to check, in tokens (default: what a load picks)."
        )
        var contextLength: Int?
        @Option(help: "Generations decoded together, each with its own context.") var slots = 1
        @Flag(name: .long, help: "Print one JSON object.") var json = false

        func execute() async throws {
            try await CLI.start(global)
            let fit = try RunAnywhere.checkCompatibility(modelId: id, contextLength: contextLength, slots: slots)
            if json {
                try CLI.printJSON(fit, pretty: true)
            } else {
                print("\(fit.modelId): \(fit.isCompatible ? "fits" : "does not fit")")
                if fit.contextLength > 0 { print("  context:   \(fit.contextLength) tokens × \(slots)") }
                print(
                    "  memory:    \(CLI.bytes(fit.memoryRequiredBytes)) needed (weights \(CLI.bytes(fit.weightsBytes)), "
                        + "KV cache \(CLI.bytes(fit.kvCacheBytes)), working \(CLI.bytes(fit.workingBytes))); "
                        + "\(CLI.bytes(fit.memoryAvailableBytes)) free"
                )
                print("  disk:      \(CLI.bytes(fit.downloadBytes)) to download; \(CLI.bytes(fit.diskFreeBytes)) free")
                for reason in fit.reasons { print("  ✗ \(reason)") }
            }
            if !fit.isCompatible { throw ExitCode(1) }
        }
    }

    struct Remove: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Unregister a model and delete its stored files."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The model id.") var id: String

        func execute() async throws {
            try await CLI.start(global)
            try await RunAnywhere.removeModel(id)
            print("Removed \(id)")
        }
    }
}

extension ModelCategory: ExpressibleByArgument {}
extension ArchiveType: ExpressibleByArgument {}
extension InferenceFramework: ExpressibleByArgument {
    /// The frameworks this CLI's backends run (the ids their plugins declare); anything else
    /// is a usage error, as it was when the ids were a closed enum.
    static let known: [InferenceFramework] = [
        .llamaCpp, "whispercpp", "sherpa", "system", "resemblyzer", "deterministic",
    ]

    /// A known framework id, or `nil` (a usage error listing the choices).
    public init?(argument: String) {
        guard Self.known.contains(InferenceFramework(argument)) else { return nil }
        self.init(argument)
    }

    /// The ids `--help` and usage errors list.
    public static var allValueStrings: [String] { known.map(\.rawValue) }
}
