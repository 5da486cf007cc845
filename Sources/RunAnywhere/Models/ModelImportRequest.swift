#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A local model file to bring into the SDK: the original SDK's request for
/// ``RunAnywhere/importModel(_:)``.
///
/// ```swift
/// let request = ModelImportRequest(path: URL(fileURLWithPath: "SmolLM2.gguf"), modelId: "smollm2",
///                                  category: .llm, framework: .llamaCpp)
/// let imported = try await RunAnywhere.importModel(request)
/// ```
public struct ModelImportRequest: Sendable, Codable, Equatable {
    /// The file (or directory) on this machine.
    public var path: URL
    /// The id to register it under.
    public var modelId: String
    /// A display name; `nil` uses the id.
    public var name: String?
    /// What the model does.
    public var category: ModelCategory
    /// The engine that runs it.
    public var framework: InferenceFramework
    /// Whether the file is copied or moved into the store.
    public var mode: ModelImportMode
    /// Whether the file goes into the SDK's store (as ``mode`` says), or is registered where
    /// it is (`false`: the SDK reads it there and never deletes it).
    public var copyIntoManagedStorage: Bool
    /// Whether a model registered under the same id is removed first (its stored files with
    /// it), rather than the import refused with `.modelAlreadyExists`.
    public var overwriteExisting: Bool
    /// The original SDK's switch for checking the file before it is registered. Here every
    /// file is checked by its backend's inspector (a file its engine could not load is
    /// refused), so `false` checks it too.
    public var validateBeforeRegister: Bool

    /// A request to import `path` as `modelId`, into the store.
    public init(
        path: URL,
        modelId: String,
        name: String? = nil,
        category: ModelCategory,
        framework: InferenceFramework,
        mode: ModelImportMode = .copy,
        copyIntoManagedStorage: Bool = true,
        overwriteExisting: Bool = false
    ) {
        self.path = path
        self.modelId = modelId
        self.name = name
        self.category = category
        self.framework = framework
        self.mode = mode
        self.copyIntoManagedStorage = copyIntoManagedStorage
        self.overwriteExisting = overwriteExisting
        self.validateBeforeRegister = true
    }

    /// The original SDK's empty request, filled in through ``model`` and ``sourcePath``. As
    /// there, every switch starts off: the file is registered where it is unless
    /// ``copyIntoManagedStorage`` is set.
    public init() {
        self.init(path: URL(fileURLWithPath: ""), modelId: "", category: .llm, framework: InferenceFramework(""))
        copyIntoManagedStorage = false
        validateBeforeRegister = false
    }

    /// The model to register, as the original SDK's request carries it: its id, name,
    /// category and framework are what this request uses (the format is read from the file).
    public var model: ModelInfo {
        get {
            ModelInfo(id: modelId, name: name ?? modelId, category: category, format: .unknown, framework: framework)
        }
        set {
            modelId = newValue.id
            name = newValue.name
            category = newValue.category
            framework = newValue.framework
        }
    }

    /// Whether the request names a model (the original SDK's `hasModel`).
    public var hasModel: Bool { !modelId.isEmpty }

    /// ``path`` as text, as the original SDK's request carries it.
    public var sourcePath: String {
        get { path.path }
        set { path = URL(fileURLWithPath: newValue) }
    }

    enum CodingKeys: String, CodingKey {
        case path, modelId, name, category, framework, mode, copyIntoManagedStorage, overwriteExisting
        case validateBeforeRegister
    }

    /// Decodes a request; the switches added for the original SDK may be missing (older JSON).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            path: try container.decode(URL.self, forKey: .path),
            modelId: try container.decode(String.self, forKey: .modelId),
            name: try container.decodeIfPresent(String.self, forKey: .name),
            category: try container.decode(ModelCategory.self, forKey: .category),
            framework: try container.decode(InferenceFramework.self, forKey: .framework),
            mode: try container.decodeIfPresent(ModelImportMode.self, forKey: .mode) ?? .copy,
            copyIntoManagedStorage: try container.decodeIfPresent(Bool.self, forKey: .copyIntoManagedStorage) ?? true,
            overwriteExisting: try container.decodeIfPresent(Bool.self, forKey: .overwriteExisting) ?? false
        )
        validateBeforeRegister = try container.decodeIfPresent(Bool.self, forKey: .validateBeforeRegister) ?? true
    }
}

/// What ``RunAnywhere/importModel(_:)`` did, as the original SDK reports it. A failed import
/// throws, so a result always describes a model that is now registered.
public struct ModelImportResult: Sendable, Equatable {
    /// The registered model, its ``ModelInfo/localPath`` in the store (or where it was,
    /// when not copied into the store).
    public var model: ModelInfo
    /// Whether the file is in the SDK's store (``ModelImportRequest/copyIntoManagedStorage``).
    public var copiedIntoManagedStorage: Bool

    /// Creates the result for `model`.
    public init(model: ModelInfo, copiedIntoManagedStorage: Bool = true) {
        self.model = model
        self.copiedIntoManagedStorage = copiedIntoManagedStorage
    }

    /// Always true: a failed import throws instead.
    public var success: Bool { true }
    /// Always true: the result carries the model (the original SDK's `hasModel`).
    public var hasModel: Bool { true }
    /// The model file's path.
    public var localPath: String { model.localPath?.path ?? "" }
    /// The bytes the model takes on disk.
    public var importedBytes: Int64 { model.sizeBytes ?? 0 }
    /// Always empty: what the original SDK warned about (an unverified format) is an error here.
    public var warnings: [String] { [] }
    /// Always empty: a failed import throws instead.
    public var errorMessage: String { "" }
    /// Whether the model is registered with its file (always, once the call returns).
    public var registered: Bool { model.localPath != nil }
}

extension RunAnywhereSDK {
    /// Imports a local model on a request (the original SDK's call and result): into the
    /// store with ``importModel(from:id:name:category:framework:mode:primaryFile:)``, or, without
    /// ``ModelImportRequest/copyIntoManagedStorage``, registered where it is after its
    /// backend's inspector has checked it.
    ///
    /// With ``ModelImportRequest/overwriteExisting``, a file already in the registered model's
    /// place (the original SDK's apps re-import a model from its own file) only renames the
    /// entry, keeping everything else it knows; any other file is checked first, and only
    /// then is the old model removed.
    ///
    /// - Throws: the import's errors; `.modelAlreadyExists` without `overwriteExisting`.
    @discardableResult
    public func importModel(_ request: ModelImportRequest) async throws(SDKException) -> ModelImportResult {
        let registry = try runtime().registry
        if request.overwriteExisting, let existing = try? model(request.modelId) {
            let store = paths.modelDirectory(framework: existing.framework, id: existing.id)
            let inStore = FileSystem.isWithin(request.path, folder: store)
            let inPlace = existing.localPath?.standardizedFileURL == request.path.standardizedFileURL
            if inStore || (inPlace && !request.copyIntoManagedStorage) {
                var renamed = existing
                renamed.name = request.name ?? existing.name
                try registry.register(renamed, replace: true)
                events.publish(.modelRegistered(modelId: renamed.id))
                return ModelImportResult(model: renamed, copiedIntoManagedStorage: inStore)
            }
            _ = try registry.inspectedEntry(
                request.path,
                id: request.modelId,
                name: request.name,
                category: request.category,
                framework: request.framework
            )
            try await removeModel(request.modelId)
        }
        guard request.copyIntoManagedStorage else {
            let model = try registry.registerInPlace(
                request.path,
                id: request.modelId,
                name: request.name,
                category: request.category,
                framework: request.framework
            )
            events.publish(.modelRegistered(modelId: model.id))
            return ModelImportResult(model: model, copiedIntoManagedStorage: false)
        }
        let model = try importModel(
            from: request.path,
            id: request.modelId,
            name: request.name,
            category: request.category,
            framework: request.framework,
            mode: request.mode
        )
        return ModelImportResult(model: model)
    }
}

extension RunAnywhere {
    /// Imports a local model file.
    ///
    /// Calls ``RunAnywhereSDK/importModel(_:)`` on the shared instance.
    @discardableResult
    public static func importModel(_ request: ModelImportRequest) async throws(SDKException) -> ModelImportResult {
        try await sdk().importModel(request)
    }
}
