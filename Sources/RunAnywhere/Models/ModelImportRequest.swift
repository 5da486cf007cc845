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

extension RunAnywhereSDK {
    /// ``importModel(from:id:name:category:framework:mode:primaryFile:)`` on a request.
    @discardableResult
    public func importModel(_ request: ModelImportRequest) throws(SDKException) -> ModelInfo {
        try importModel(
            from: request.path,
            id: request.modelId,
            name: request.name,
            category: request.category,
            framework: request.framework,
            mode: request.mode
        )
    }
}

extension RunAnywhere {
    /// Imports a local model file.
    ///
    /// Calls ``RunAnywhereSDK/importModel(_:)`` on the shared instance.
    @discardableResult
    public static func importModel(_ request: ModelImportRequest) throws(SDKException) -> ModelInfo {
        try sdk().importModel(request)
    }
}
