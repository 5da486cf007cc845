#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which model to load, for the original SDK's request-shaped ``RunAnywhereSDK/loadModel(_:)-(ModelLoadRequest)``:
/// the capability is the model's category (from the registry unless given).
public struct ModelLoadRequest: Sendable, Equatable, Codable {
    /// The registered model's id.
    public var modelId: String
    /// The capability to load it into; `nil` takes the registered model's category.
    public var category: ModelCategory?

    /// Creates a request.
    public init(modelId: String, category: ModelCategory? = nil) {
        self.modelId = modelId
        self.category = category
    }
}

/// How a ``ModelLoadRequest`` ended: the loaded model, or the error, never thrown.
public struct ModelLoadResult: Sendable, Equatable {
    /// Whether the model is loaded.
    public var success: Bool { error == nil }
    /// The id that was asked for.
    public var modelId: String
    /// The loaded model's registry entry; `nil` when the load failed.
    public var model: ModelInfo?
    /// Why the load failed; `nil` when it succeeded.
    public var error: SDKException?

    /// Creates a result.
    public init(modelId: String, model: ModelInfo?, error: SDKException?) {
        self.modelId = modelId
        self.model = model
        self.error = error
    }
}

/// Which capability's model to unload, for the original SDK's request-shaped
/// ``RunAnywhereSDK/unloadModel(_:)``.
public struct ModelUnloadRequest: Sendable, Equatable, Codable {
    /// The capability whose model is unloaded.
    public var category: ModelCategory

    /// Creates a request.
    public init(category: ModelCategory) {
        self.category = category
    }
}

/// How a ``ModelUnloadRequest`` ended.
public struct ModelUnloadResult: Sendable, Equatable {
    /// Whether the capability has no model loaded now.
    public var success: Bool { error == nil }
    /// Why the unload failed; `nil` when it succeeded.
    public var error: SDKException?

    /// Creates a result.
    public init(error: SDKException?) {
        self.error = error
    }
}
