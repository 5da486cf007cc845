import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The persistent catalogue of models.
///
/// `registry.json` is the index, always replaced atomically. Each model stored under
/// `models/<framework>/<id>/` also carries a `model.json` copy of its entry, so that
/// discovery at start-up can rebuild entries the index lacks. A registry file that cannot
/// be parsed is never overwritten: loading fails with `.registryCorrupted` and the model
/// files stay where they are.
package final class ModelRegistry: Sendable {
    static let sidecarName = "model.json"
    private static let formatVersion = 1

    let paths: SDKPaths
    /// What the backends know about their model files; consulted on every import and download.
    let inspectors: ModelFileInspectors
    /// The URLs a registered model's files may have: the instance's download strategies'.
    package let strategies: DownloadStrategies
    private let models = Mutex<[String: ModelInfo]>([:])
    private let logger = SDKLogger(category: "ModelRegistry")

    init(
        paths: SDKPaths,
        inspectors: ModelFileInspectors = ModelFileInspectors(),
        strategies: DownloadStrategies = DownloadStrategies()
    ) {
        self.paths = paths
        self.inspectors = inspectors
        self.strategies = strategies
    }

    private struct RegistryFile: Codable {
        var version: Int
        var models: [ModelInfo]
    }

    // MARK: Loading

    /// The largest `registry.json` read: some ten thousand models' entries.
    static let maximumRegistryBytes = 64 << 20

    /// Reads `registry.json`, then adds models found on disk that it does not list.
    func load() throws(SDKException) {
        var loaded: [String: ModelInfo] = [:]
        let file = paths.registryFile
        if FileManager.default.fileExists(atPath: file.path) {
            do {
                let data = try FileSystem.contents(of: file, limit: Self.maximumRegistryBytes)
                let decoded = try Self.decoder.decode(RegistryFile.self, from: data)
                for model in decoded.models { loaded[model.id] = model }
            } catch {
                throw SDKException(
                    .registryCorrupted,
                    "The model registry \(file.path) cannot be read (\(Self.describe(error)))",
                    recovery:
                        "Move the file aside; the models under \(paths.modelsDirectory.path) are untouched and are rediscovered at the next start",
                    underlying: error
                )
            }
            // Ids and framework ids name folders: an entry that could point outside the
            // store is refused before anything acts on it.
            for model in loaded.values where !Self.namesSafeFolders(model) {
                throw SDKException(
                    .registryCorrupted,
                    "The model registry \(file.path) has an entry with an invalid id or framework ('\(model.id)', '\(model.framework)')",
                    recovery:
                        "Move the file aside; the models under \(paths.modelsDirectory.path) are rediscovered at the next start"
                )
            }
        }
        let discovered = discoverModels(excluding: Set(loaded.keys))
        for model in discovered { loaded[model.id] = model }
        let vanished = Self.forgetVanishedFiles(in: &loaded)
        models.withLock { $0 = loaded }
        if !discovered.isEmpty {
            logger.info(
                "Discovered \(discovered.count) model(s) on disk: \(discovered.map(\.id).joined(separator: ", "))"
            )
        }
        if !vanished.isEmpty {
            logger.warning("Files of \(vanished.joined(separator: ", ")) are gone: no longer marked downloaded")
        }
        if !discovered.isEmpty || !vanished.isEmpty { try save() }
    }

    /// Entries whose primary file is gone stop being "downloaded" (the entry itself stays,
    /// so nothing the user registered is lost). Returns the ids touched.
    private static func forgetVanishedFiles(in models: inout [String: ModelInfo]) -> [String] {
        var touched: [String] = []
        for (id, model) in models {
            guard let path = model.localPath, !FileSystem.isReadableFile(path) else { continue }
            touched.append(id)
            models[id]?.localPath = nil
            models[id]?.downloadedAt = nil
        }
        return touched.sorted()
    }

    /// Model folders under `models/` that the index does not list: read from their
    /// `model.json`, or made into an entry by a backend's inspector that recognizes their files.
    private func discoverModels(excluding known: Set<String>) -> [ModelInfo] {
        let fm = FileManager.default
        var found: [ModelInfo] = []
        let frameworks = (try? fm.contentsOfDirectory(atPath: paths.modelsDirectory.path)) ?? []
        for framework in frameworks.sorted() where (try? ModelInfo.validate(id: framework)) != nil {
            let frameworkDir = paths.modelsDirectory.appendingPathComponent(framework, isDirectory: true)
            guard let ids = try? fm.contentsOfDirectory(atPath: frameworkDir.path) else { continue }
            for id in ids.sorted() where !known.contains(id) && (try? ModelInfo.validate(id: id)) != nil {
                let dir = frameworkDir.appendingPathComponent(id, isDirectory: true)
                if let model = readSidecar(in: dir), model.id == id, model.framework.rawValue == framework {
                    found.append(model)
                } else if let model = inspectors.discover(folder: dir, id: id, framework: InferenceFramework(framework))
                {
                    found.append(model)
                }
            }
        }
        return found
    }

    /// Whether the model's id and framework are valid folder names (see ``ModelInfo/validate(id:)``).
    private static func namesSafeFolders(_ model: ModelInfo) -> Bool {
        (try? ModelInfo.validate(id: model.id)) != nil && (try? model.framework.validate()) != nil
    }

    private func readSidecar(in dir: URL) -> ModelInfo? {
        guard let data = try? FileSystem.contents(of: dir.appendingPathComponent(Self.sidecarName), limit: 1 << 20),
            var model = try? Self.decoder.decode(ModelInfo.self, from: data)
        else { return nil }
        // The folder may have moved with the whole home: trust the folder, not the old path.
        if let relative = model.artifact?.primaryPath ?? model.localPath?.lastPathComponent {
            model.localPath = dir.appendingPathComponent(relative)
        }
        return model
    }

    // MARK: Queries

    /// Every model, sorted by id.
    func list() -> [ModelInfo] {
        models.withLock { Array($0.values) }.sorted { $0.id < $1.id }
    }

    /// Models matching the given category and framework (either may be `nil`).
    func models(category: ModelCategory? = nil, framework: InferenceFramework? = nil) -> [ModelInfo] {
        list().filter {
            (category == nil || $0.category == category) && (framework == nil || $0.framework == framework)
        }
    }

    /// One model, or `.modelNotFound`.
    package func get(_ id: String) throws(SDKException) -> ModelInfo {
        guard let model = models.withLock({ $0[id] }) else {
            throw SDKException(
                .modelNotFound,
                "No model with id '\(id)' is registered",
                recovery: "See `runanywhere models list`, or import the model first"
            )
        }
        return model
    }

    // MARK: Changes

    /// Adds or replaces an entry. An entry whose `localPath` is set must point at a
    /// readable file.
    package func register(_ model: ModelInfo, replace: Bool = false) throws(SDKException) {
        try ModelInfo.validate(id: model.id)
        try model.framework.validate()
        try model.artifact?.validate(canDownload: strategies.canHandle)
        try model.validateVisionProjector()
        if let path = model.localPath, !FileSystem.isReadableFile(path) {
            throw SDKException(.modelFileNotFound, "Model file \(path.path) does not exist or cannot be read")
        }
        try update { models throws(SDKException) in
            if models[model.id] != nil, !replace { throw Self.alreadyRegistered(model.id) }
            models[model.id] = model
        }
    }

    /// The entry an import of `source` (a file, or a folder and its one model file) would
    /// make, checked as an import checks it (id, file, framework, the backend's inspector),
    /// with its file where it is now; nothing is written.
    func inspectedEntry(
        _ source: URL,
        id: String,
        name: String?,
        category: ModelCategory,
        framework: InferenceFramework
    ) throws(SDKException) -> ModelInfo {
        try inspectedSource(source, id: id, name: name, category: category, framework: framework).model
    }

    /// ``inspectedEntry(_:id:name:category:framework:)``, with the primary file's name and
    /// whether `source` is a folder, as an import into the store needs them.
    private func inspectedSource(
        _ source: URL,
        id: String,
        name: String?,
        category: ModelCategory,
        framework: InferenceFramework,
        primaryFile: String? = nil
    ) throws(SDKException) -> (model: ModelInfo, fileName: String, isFolder: Bool) {
        try ModelInfo.validate(id: id)
        let source = source.standardizedFileURL
        let isFolder = FileSystem.isDirectory(source)
        let fileName = try isFolder ? Self.primaryFile(in: source, named: primaryFile) : source.lastPathComponent
        let primary = isFolder ? source.appendingPathComponent(fileName) : source
        guard FileSystem.isReadableFile(primary) else {
            throw SDKException(.modelFileNotFound, "Model file \(primary.path) does not exist or cannot be read")
        }
        try framework.validate()
        var model = ModelInfo(
            id: id,
            name: name ?? id,
            category: category,
            format: .guess(fromFileName: fileName),
            framework: framework,
            localPath: primary,
            sizeBytes: FileSystem.allocatedSize(of: source)
        )
        model = try inspectors.inspect(model, file: primary)
        if let name { model.name = name }
        return (model, fileName, isFolder)
    }

    /// Registers a local model file (or folder) where it is, once the inspector of its
    /// backend has checked it; the SDK never deletes a file it did not put in the store.
    func registerInPlace(
        _ source: URL,
        id: String,
        name: String?,
        category: ModelCategory,
        framework: InferenceFramework
    ) throws(SDKException) -> ModelInfo {
        let model = try inspectedEntry(source, id: id, name: name, category: category, framework: framework)
        try register(model)
        return model
    }

    /// Copies or moves a local model file, or a folder of model files, into the store and
    /// registers it.
    ///
    /// A folder is for models made of several files (a voice and its `tokens.txt`); its
    /// primary file is `primaryFile`, or the one file with a model extension in it.
    ///
    /// Everything is staged in `tmp/`, validated (by the inspector of the model's backend),
    /// renamed into `models/<framework>/<id>/`, and only then added to the index. Any
    /// failure undoes the steps taken: no half-imported folder, no index entry, and a
    /// moved source is put back.
    func importModel(
        from source: URL,
        id: String,
        name: String?,
        category: ModelCategory,
        framework: InferenceFramework,
        mode: ModelImportMode,
        primaryFile: String? = nil,
        visionProjectorFile: String? = nil
    ) throws(SDKException) -> ModelInfo {
        try ModelInfo.validate(id: id)
        if models.withLock({ $0[id] }) != nil { throw Self.alreadyRegistered(id) }
        let source = source.standardizedFileURL
        var (model, fileName, isFolder) = try inspectedSource(
            source,
            id: id,
            name: name,
            category: category,
            framework: framework,
            primaryFile: primaryFile
        )
        let destinationDir = paths.modelDirectory(framework: framework, id: id)
        model.localPath = destinationDir.appendingPathComponent(fileName)
        model.visionProjectorFile = visionProjectorFile
        try paths.createDirectories()
        let stage = paths.tempDirectory.appendingPathComponent("import-\(UUID().uuidString)", isDirectory: true)
        let fm = FileManager.default
        // Where the source's content sits inside the stage (and later the store).
        let stagedContent = isFolder ? stage : stage.appendingPathComponent(fileName)
        let placedContent = isFolder ? destinationDir : destinationDir.appendingPathComponent(fileName)
        var movedIntoStage = false
        var placed = false
        do throws(SDKException) {
            guard !fm.fileExists(atPath: destinationDir.path) else {
                throw SDKException(
                    .fileSystemError,
                    "\(destinationDir.path) already exists but is not registered",
                    recovery: "Remove the folder or restart the SDK so it is discovered"
                )
            }
            try FileSystem.transfer(source, to: stagedContent, move: mode == .move)
            movedIntoStage = mode == .move
            try FileSystem.atomicWrite(try Self.encode(model), to: stage.appendingPathComponent(Self.sidecarName))
            try FileSystem.transfer(stage, to: destinationDir, move: true)
            placed = true
            try update { models throws(SDKException) in
                guard models[id] == nil else {
                    throw SDKException(.modelAlreadyExists, "A model with id '\(id)' was registered meanwhile")
                }
                models[id] = model
            }
        } catch {
            let content = placed ? placedContent : stagedContent
            if movedIntoStage {
                if isFolder { try? fm.removeItem(at: content.appendingPathComponent(Self.sidecarName)) }
                try? FileSystem.transfer(content, to: source, move: true)
            }
            try? fm.removeItem(at: placed ? destinationDir : stage)
            try? fm.removeItem(at: stage)
            throw error
        }
        model.localPath = destinationDir.appendingPathComponent(fileName)
        logger.info("Imported \(id) (\(model.sizeBytes ?? 0) bytes) into \(destinationDir.path)")
        return model
    }

    /// Imports a vision-language model from its two files, the language model and its vision
    /// projector, which must fit each other (``VisionProjectorFile``). Both go into one staged
    /// folder that is imported like a folder model; on any failure moved files go back.
    func importVisionModel(
        from source: URL,
        projector: URL,
        id: String,
        name: String?,
        framework: InferenceFramework,
        mode: ModelImportMode
    ) throws(SDKException) -> ModelInfo {
        try ModelInfo.validate(id: id)
        if models.withLock({ $0[id] }) != nil { throw Self.alreadyRegistered(id) }
        let source = source.standardizedFileURL
        let projector = projector.standardizedFileURL
        guard FileSystem.isReadableFile(source) else {
            throw SDKException(.modelFileNotFound, "Model file \(source.path) does not exist or cannot be read")
        }
        guard FileSystem.isReadableFile(projector) else {
            throw SDKException(
                .modelFileNotFound,
                "Vision projector \(projector.path) does not exist or cannot be read"
            )
        }
        let modelName = source.lastPathComponent
        let projectorName = projector.lastPathComponent
        guard modelName != projectorName else {
            throw SDKException(.invalidInput, "The model and its vision projector are both named \(modelName)")
        }
        try VisionProjectorFile(contentsOf: projector).check(against: source, projectorName: projectorName)
        try paths.createDirectories()
        let pair = paths.tempDirectory.appendingPathComponent("pair-\(UUID().uuidString)", isDirectory: true)
        var moved: [(original: URL, staged: URL)] = []
        do throws(SDKException) {
            for file in [source, projector] {
                let staged = pair.appendingPathComponent(file.lastPathComponent)
                try FileSystem.transfer(file, to: staged, move: mode == .move)
                if mode == .move { moved.append((file, staged)) }
            }
            // The inner import moves the folder into the store, or puts it back here on failure.
            return try importModel(
                from: pair,
                id: id,
                name: name,
                category: .vision,
                framework: framework,
                mode: .move,
                primaryFile: modelName,
                visionProjectorFile: projectorName
            )
        } catch {
            for file in moved { try? FileSystem.transfer(file.staged, to: file.original, move: true) }
            try? FileManager.default.removeItem(at: pair)
            throw error
        }
    }

    /// The primary file of a model folder: the one named, or the only file with a model extension.
    private static func primaryFile(in folder: URL, named name: String?) throws(SDKException) -> String {
        if let name {
            guard !name.contains("/"), !name.hasPrefix(".") else {
                throw SDKException(
                    .invalidInput,
                    "The primary file must be a plain file name inside the folder (got '\(name)')"
                )
            }
            return name
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let candidates = files.filter { ModelFormat.guess(fromFileName: $0) != .unknown }.sorted()
        guard candidates.count == 1 else {
            throw SDKException(
                .invalidInput,
                candidates.isEmpty
                    ? "\(folder.path) holds no model file (.gguf, .onnx, .bin, .ggml)"
                    : "\(folder.path) holds several model files: \(candidates.joined(separator: ", "))",
                recovery: "Name the primary file (--file / primaryFile:)"
            )
        }
        return candidates[0]
    }

    /// Puts a staged folder of downloaded files in place as `models/<framework>/<id>/` and
    /// records `model` (with its new sizes and dates) as downloaded from there.
    ///
    /// The stage is renamed into place in one step. A stale folder of an earlier copy is
    /// moved aside first and put back if anything fails, and so is the index entry.
    func install(_ model: ModelInfo, stagedAt stage: URL) throws(SDKException) -> ModelInfo {
        let fm = FileManager.default
        let dir = paths.modelDirectory(framework: model.framework, id: model.id)
        var installed = model
        installed.localPath = dir.appendingPathComponent(
            model.artifact?.primaryPath ?? model.localPath?.lastPathComponent ?? ""
        )
        try FileSystem.atomicWrite(try Self.encode(installed), to: stage.appendingPathComponent(Self.sidecarName))
        var stale: URL?
        if fm.fileExists(atPath: dir.path) {
            let trash = paths.tempDirectory.appendingPathComponent(
                "remove-\(model.id)-\(UUID().uuidString)",
                isDirectory: true
            )
            try FileSystem.transfer(dir, to: trash, move: true)
            stale = trash
        }
        do throws(SDKException) {
            try FileSystem.transfer(stage, to: dir, move: true)
            do throws(SDKException) {
                try update { models throws(SDKException) in
                    guard models[model.id] != nil else {
                        throw SDKException(.modelNotFound, "Model '\(model.id)' was removed while it downloaded")
                    }
                    models[model.id] = installed
                }
            } catch {
                try? fm.removeItem(at: dir)
                throw error
            }
        } catch {
            if let stale { try? FileSystem.transfer(stale, to: dir, move: true) }
            throw error
        }
        if let stale { try? fm.removeItem(at: stale) }
        logger.info("Installed \(model.id) in \(dir.path)")
        return installed
    }

    /// Removes a model from the index and, if its files are in the store, deletes them.
    /// Files registered from elsewhere are left alone. With `keepingEntry` the entry stays,
    /// marked not downloaded, so the model can be downloaded again.
    func remove(_ id: String, keepingEntry: Bool = false) throws(SDKException) {
        let model = try get(id)
        let fm = FileManager.default
        let storeDir = paths.modelDirectory(framework: model.framework, id: id)
        let inStore = fm.fileExists(atPath: storeDir.path)
        let trash = paths.tempDirectory.appendingPathComponent("remove-\(id)-\(UUID().uuidString)", isDirectory: true)
        // Out of the way first, so a failed index write can put it back untouched.
        if inStore { try FileSystem.transfer(storeDir, to: trash, move: true) }
        do throws(SDKException) {
            try update { models in
                if keepingEntry {
                    models[id]?.localPath = nil
                    models[id]?.downloadedAt = nil
                } else {
                    models[id] = nil
                }
            }
        } catch {
            if inStore { try? FileSystem.transfer(trash, to: storeDir, move: true) }
            throw error
        }
        if inStore { try? fm.removeItem(at: trash) }
        logger.info(keepingEntry ? "Deleted the files of \(id)" : "Removed model \(id)")
    }

    /// Records that a model was just used.
    func markUsed(_ id: String, at date: Date = Date()) {
        try? update { models in models[id]?.lastUsedAt = date }
    }

    /// Applies `change` and writes the index; if the write fails the change is undone.
    private func update(_ change: (inout [String: ModelInfo]) throws(SDKException) -> Void) throws(SDKException) {
        try models.withLock { models throws(SDKException) in
            let before = models
            try change(&models)
            do throws(SDKException) {
                try write(models)
            } catch {
                models = before
                throw error
            }
        }
    }

    private func save() throws(SDKException) {
        try models.withLock { models throws(SDKException) in try write(models) }
    }

    private func write(_ models: [String: ModelInfo]) throws(SDKException) {
        let file = RegistryFile(version: Self.formatVersion, models: models.values.sorted { $0.id < $1.id })
        let data: Data
        do { data = try Self.encoder.encode(file) } catch {
            throw SDKException(.internalError, "Cannot encode the model registry", underlying: error)
        }
        try paths.createDirectories()
        try FileSystem.atomicWrite(data, to: paths.registryFile)
    }

    private static func alreadyRegistered(_ id: String) -> SDKException {
        SDKException(
            .modelAlreadyExists,
            "A model with id '\(id)' is already registered",
            recovery: "Choose another id or remove the existing model first"
        )
    }

    // MARK: Coding

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // RFC 3339 in UTC, whole seconds. FoundationEssentials' ISO 8601 style loads no ICU (measured:
        // no ICU library mapped, 0.9 MiB more resident than a registry of plain numbers would take).
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    private static func encode(_ model: ModelInfo) throws(SDKException) -> Data {
        do { return try encoder.encode(model) } catch {
            throw SDKException(.internalError, "Cannot encode model \(model.id)", underlying: error)
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            context.underlyingError.map { "\($0)" } ?? context.debugDescription
        case DecodingError.keyNotFound(let key, _): "missing field '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            context.debugDescription
        default: "\(error)"
        }
    }
}
