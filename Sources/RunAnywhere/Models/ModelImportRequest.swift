#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A local model file to bring into the store: the original SDK's request for
/// ``RunAnywhere/importModel(_:)``.
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

    /// A request to import `path` as `modelId`.
    public init(
        path: URL,
        modelId: String,
        name: String? = nil,
        category: ModelCategory,
        framework: InferenceFramework,
        mode: ModelImportMode = .copy
    ) {
        self.path = path
        self.modelId = modelId
        self.name = name
        self.category = category
        self.framework = framework
        self.mode = mode
    }
}

/// What ``RunAnywhere/importModel(_:)`` did, as the original SDK reports it. A failed import
/// throws, so a result always describes a model that is now in the store.
public struct ModelImportResult: Sendable, Equatable {
    /// The registered model, its ``ModelInfo/localPath`` in the store.
    public var model: ModelInfo

    /// Creates the result for `model`.
    public init(model: ModelInfo) {
        self.model = model
    }

    /// Always true: a failed import throws instead.
    public var success: Bool { true }
    /// The file's path in the store.
    public var localPath: String { model.localPath?.path ?? "" }
    /// The bytes the model takes in the store.
    public var importedBytes: Int64 { model.sizeBytes ?? 0 }
    /// Always empty: what the original SDK warned about (an unverified format) is an error here.
    public var warnings: [String] { [] }
    /// Always empty: a failed import throws instead.
    public var errorMessage: String { "" }
    /// Whether the model is registered with its file (always, once the call returns).
    public var registered: Bool { model.localPath != nil }
    /// Whether the file is in the SDK's store (always: both ``ModelImportMode``s put it there).
    public var copiedIntoManagedStorage: Bool { model.localPath != nil }
}

extension RunAnywhereSDK {
    /// ``importModel(from:id:name:category:framework:mode:primaryFile:)`` on a request (the
    /// original SDK's call and result).
    @discardableResult
    public func importModel(_ request: ModelImportRequest) throws(SDKException) -> ModelImportResult {
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
    public static func importModel(_ request: ModelImportRequest) throws(SDKException) -> ModelImportResult {
        try sdk().importModel(request)
    }
}
