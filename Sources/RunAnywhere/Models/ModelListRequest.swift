/// Which registered models to list, for the original SDK's ``RunAnywhereSDK/listModels(_:)``
/// and ``RunAnywhereSDK/queryModels(_:)``.
public struct ModelListRequest: Sendable, Equatable, Codable {
    /// Only models of this category; `nil` for all.
    public var category: ModelCategory?
    /// Only models of this framework; `nil` for all.
    public var framework: InferenceFramework?
    /// Only models whose files are on this device.
    public var downloadedOnly: Bool

    /// Creates a request; the defaults list every registered model.
    public init(category: ModelCategory? = nil, framework: InferenceFramework? = nil, downloadedOnly: Bool = false) {
        self.category = category
        self.framework = framework
        self.downloadedOnly = downloadedOnly
    }
}

/// The original SDK's name for a filtered listing: the same filters as ``ModelListRequest``.
public typealias ModelQuery = ModelListRequest

/// Registered models, sorted by id, or why they could not be read.
public struct ModelListResult: Sendable, Equatable {
    /// The models.
    public var models: [ModelInfo]
    /// How many models there are.
    public var totalCount: Int { models.count }
    /// Why the registry could not be read (the SDK not initialized); `nil` otherwise.
    public var error: SDKException?

    /// Creates a result.
    public init(models: [ModelInfo], error: SDKException? = nil) {
        self.models = models
        self.error = error
    }
}

/// Which model to look up, for the original SDK's ``RunAnywhereSDK/getModel(_:)``.
public struct ModelGetRequest: Sendable, Equatable, Codable {
    /// The model's id.
    public var modelId: String

    /// Creates a request.
    public init(modelId: String) {
        self.modelId = modelId
    }
}

/// One registered model, when there is one of that id.
public struct ModelGetResult: Sendable, Equatable {
    /// The model; `nil` when none has the id.
    public var model: ModelInfo?
    /// Whether a model has the id.
    public var found: Bool { model != nil }
    /// Why the lookup failed (`model_not_found`, or the SDK not initialized); `nil` when found.
    public var error: SDKException?

    /// Creates a result.
    public init(model: ModelInfo?, error: SDKException? = nil) {
        self.model = model
        self.error = error
    }
}
